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

// classifyRef returns the namespace of a ref and, for the namespaces that
// travel, checks its name the way local input is checked. A ref outside
// them is refOther with a nil error.
func classifyRef(name string) (refKind, error) {
	switch {
	case name == store.StateRef:
		return refState, nil
	case strings.HasPrefix(name, store.SkillRefPrefix), strings.HasPrefix(name, store.PluginRefPrefix):
		skill, ok := store.SkillNameOfRef(name)
		if !ok {
			return refSkill, fmt.Errorf("want %sNAME or %sPLUGIN/NAME", store.SkillRefPrefix, store.PluginRefPrefix)
		}
		return refSkill, store.CheckQualifiedName(skill)
	case strings.HasPrefix(name, store.CandidateRefPrefix):
		skill, ok := store.CandidateNameOfRef(name)
		if !ok {
			return refCandidate, fmt.Errorf("want %sNAME or %sPLUGIN/NAME (a candidate ref of ref layout 1?)", store.ManagedCandidateRefPrefix, store.PluginCandidateRefPrefix)
		}
		return refCandidate, store.CheckQualifiedName(skill)
	case strings.HasPrefix(name, store.UpstreamRefPrefix):
		return refUpstream, checkNamePair(strings.TrimPrefix(name, store.UpstreamRefPrefix), "plugin/skill")
	case strings.HasPrefix(name, store.SupersededRefPrefix):
		skill, _, ok := store.SupersededNameOfRef(name)
		if !ok {
			return refSuperseded, fmt.Errorf("want %sskills/NAME/COMMIT or %splugins/PLUGIN/NAME/COMMIT", store.SupersededRefPrefix, store.SupersededRefPrefix)
		}
		return refSuperseded, store.CheckQualifiedName(skill)
	}
	return refOther, nil
}

// checkNamePair checks "a/b" where both parts are skill-like names (b may
// be a plugin's parts, store.PluginPartsName).
func checkNamePair(rest, form string) error {
	a, b, ok := strings.Cut(rest, "/")
	if !ok || strings.Contains(b, "/") {
		return fmt.Errorf("want %s", form)
	}
	if err := skillfs.CheckName(a); err != nil {
		return err
	}
	return store.CheckQualifiedName(store.QualifiedName(a, b))
}

// skillOfRef is the store name of a published or candidate ref.
func skillOfRef(ref string) string {
	if name, ok := store.SkillNameOfRef(ref); ok {
		return name
	}
	name, _ := store.CandidateNameOfRef(ref)
	return name
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
