package remote

import (
	"fmt"
	"strings"

	"github.com/skillstore/skillstore/store"

	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// The refs that travel between a store and its remotes. Everything a
// reviewer or another machine needs travels: published skills, upstream
// snapshots (the accepted bases), candidates, superseded candidates (so a
// candidate replaced on one machine is not revived by another) and the
// state. Plugin source refs (refs/skillstore/sources/) stay home: they
// hold a plugin's whole fetched repository, which every syncing machine
// fetches from the plugin itself, and no other ref needs them.

// refKind says which namespace a ref belongs to.
type refKind int

const (
	refOther refKind = iota
	refSkill
	refCandidate
	refUpstream
	refSuperseded
	refState
)

func (k refKind) String() string {
	return [...]string{"other", "skill", "candidate", "upstream", "superseded", "state"}[k]
}

// classifyRef returns the namespace of a ref and, for the namespaces that
// travel, checks its name the way local input is checked. A ref outside
// them is refOther with a nil error.
func classifyRef(name string) (refKind, error) {
	switch {
	case name == store.StateRef:
		return refState, nil
	case strings.HasPrefix(name, store.SkillRefPrefix):
		return refSkill, skillfs.CheckName(strings.TrimPrefix(name, store.SkillRefPrefix))
	case strings.HasPrefix(name, store.CandidateRefPrefix):
		return refCandidate, skillfs.CheckName(strings.TrimPrefix(name, store.CandidateRefPrefix))
	case strings.HasPrefix(name, store.UpstreamRefPrefix):
		return refUpstream, checkNamePair(strings.TrimPrefix(name, store.UpstreamRefPrefix), "plugin/skill")
	case strings.HasPrefix(name, store.SupersededRefPrefix):
		rest := strings.TrimPrefix(name, store.SupersededRefPrefix)
		skill, commit, ok := strings.Cut(rest, "/")
		if !ok {
			return refSuperseded, fmt.Errorf("want %s<skill>/<commit>", store.SupersededRefPrefix)
		}
		if err := skillfs.CheckName(skill); err != nil {
			return refSuperseded, err
		}
		if _, ok := store.ParseHash(commit); !ok {
			return refSuperseded, fmt.Errorf("%q is not a commit id", commit)
		}
		return refSuperseded, nil
	}
	return refOther, nil
}

// checkNamePair checks "a/b" where both parts are skill-like names.
func checkNamePair(rest, form string) error {
	a, b, ok := strings.Cut(rest, "/")
	if !ok || strings.Contains(b, "/") {
		return fmt.Errorf("want %s", form)
	}
	if err := skillfs.CheckName(a); err != nil {
		return err
	}
	return skillfs.CheckName(b)
}

// isTracked reports whether a remote ref gets a tracking ref. Superseded
// refs are create-only and named by their value, so they need none.
func (k refKind) isTracked() bool { return k != refOther && k != refSuperseded }

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
