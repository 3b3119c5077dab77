package remote

import (
	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/store"
)

// The refs that travel between a store and its remotes. Everything a
// reviewer or another machine needs travels: published skills, upstream
// snapshots (the accepted bases), candidates, superseded candidates (so a
// candidate replaced on one machine is not revived by another) and the
// state. Plugin source refs (refs/skillstore/sources/) stay home: they
// hold a plugin's whole fetched repository, which every syncing machine
// fetches from the plugin itself, and no other ref needs them.

// isTracked reports whether a remote ref of kind k gets a tracking ref.
// Superseded refs are create-only and named by their value, so they need
// none.
func isTracked(k store.RefKind) bool { return k != store.RefOther && k != store.RefSuperseded }

// BadRefError refuses a remote that advertises refs in skillstore's
// namespaces with names local input could never have.
type BadRefError struct {
	Remote string
	Refs   []string // "name: reason"
}

func (e *BadRefError) Error() string { return problem.Format(e.Summary(), e.Details()) }

// Summary names the remote.
func (e *BadRefError) Summary() string {
	return "remote " + e.Remote + " has refs skillstore never writes, refusing it"
}

// Details are the refs, "name: reason" each.
func (e *BadRefError) Details() []string { return e.Refs }
