package remote

import (
	"fmt"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/store/plugins"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
)

// A remote written by a release before namespaced identity holds ref
// layout 1 (see the README's "Skill identity and ref layout"): plugins'
// skills at refs/heads/skills/NAME, candidates at refs/heads/candidates/NAME.
// Pull and clone refuse it rather than read a plugin's skill as a managed
// one; the fix is to upgrade the store that pushes to it and push again,
// which moves the remote's refs too (see layout1Leftovers).

// RemoteLayoutError refuses a remote in an older ref layout.
type RemoteLayoutError struct {
	Remote string
	Layout int
	// Refs are layout 1 refs it advertises, when that is how it showed.
	Refs []string
}

func (e *RemoteLayoutError) Error() string {
	msg := fmt.Sprintf("remote %s was written by an older skillstore (ref layout %d, this release reads layout %d)", e.Remote, e.Layout, store.LayoutVersion)
	if len(e.Refs) > 0 {
		msg += ": " + strings.Join(e.Refs, ", ")
	}
	return msg
}

// Hint says how to move the remote.
func (e *RemoteLayoutError) Hint() string {
	return "on the machine that pushes to " + e.Remote + ", run this release's 'skillstore upgrade', then 'skillstore push': it moves the remote's refs to the new layout"
}

// isLayout1Ref reports whether a ref has a shape only ref layout 1 writes:
// a candidate or superseded ref directly under its prefix.
func isLayout1Ref(name string) bool {
	if rest, ok := strings.CutPrefix(name, store.CandidateRefPrefix); ok {
		return skillfs.CheckName(rest) == nil
	}
	if rest, ok := strings.CutPrefix(name, store.SupersededRefPrefix); ok {
		skill, commit, ok := strings.Cut(rest, "/")
		_, isHash := store.ParseHash(commit)
		return ok && isHash && skillfs.CheckName(skill) == nil
	}
	return false
}

// checkRemoteLayout refuses the fetched refs of a remote whose state
// records an older layout.
func (tx remoteTx) checkRemoteLayout(rr *remoteRefs) error {
	h, ok := rr.refs[store.StateRef]
	if !ok {
		return nil
	}
	v, err := tx.LayoutOf(h)
	if err != nil {
		return fmt.Errorf("remote %s: %w", rr.remote, err)
	}
	if v < store.LayoutVersion {
		return &RemoteLayoutError{Remote: rr.remote, Layout: v}
	}
	return nil
}

// layout1Leftovers plans deleting the refs a remote in ref layout 1 holds
// that this store's upgrade moved: a plugin's skill at
// refs/heads/skills/NAME whose history this store holds at
// refs/heads/plugins/PLUGIN/NAME (this store having no managed NAME), and
// the layout 1 candidate and superseded refs whose commit this store holds
// under its layout 2 names. Anything else stays on the remote.
func (tx remoteTx) layout1Leftovers(adv map[string]store.Hash, isLocal map[string]bool) []PushUpdate {
	plugins, err := plugins.List(tx.Tx.Reader)
	if err != nil {
		return nil
	}
	owner := map[string]string{}
	for _, p := range plugins {
		for _, skill := range p.Skills {
			owner[skill] = p.ID
		}
	}
	moved := map[store.Hash]string{} // a candidate's commit -> its layout 2 ref
	for _, name := range candidates.Names(tx.Tx.Reader) {
		if h, ok := tx.Ref(store.CandidateRef(name)); ok {
			moved[h] = store.CandidateRef(name)
		}
	}
	var out []PushUpdate
	for name, r := range adv {
		if isLocal[name] {
			continue
		}
		to := ""
		if skill, ok := strings.CutPrefix(name, store.SkillRefPrefix); ok && owner[skill] != "" {
			ref := store.SkillRef(store.QualifiedName(owner[skill], skill))
			if h, ok := tx.Ref(ref); ok && tx.HasObject(r) && tx.IsAncestor(r, h) {
				to = ref
			}
		} else if isLayout1Ref(name) {
			if rest, ok := strings.CutPrefix(name, store.SupersededRefPrefix); ok {
				skill, commit, _ := strings.Cut(rest, "/")
				h, _ := store.ParseHash(commit)
				ref := store.SupersededRef(store.QualifiedName(owner[skill], skill), h)
				if _, ok := tx.Ref(ref); ok {
					to = ref
				}
			} else if ref, ok := moved[r]; ok {
				to = ref
			} else if skill := strings.TrimPrefix(name, store.CandidateRefPrefix); tx.candidateDone(store.QualifiedName(owner[skill], skill), r) {
				to = "(accepted or rejected in this store)"
			}
		}
		if to != "" {
			out = append(out, PushUpdate{Ref: name, Action: PushDelete, Old: r.String(), Reason: "ref layout 1: moved to " + to})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref < out[j].Ref })
	return out
}
