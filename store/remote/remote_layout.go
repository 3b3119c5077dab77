package remote

import (
	"fmt"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
)

// A remote written by a release before namespaced identity holds ref
// layout 1 (see the README's "Skill identity and ref layout"): plugins'
// skills at refs/heads/skills/NAME, candidates at refs/heads/candidates/NAME.
// Pull and clone refuse it rather than read a plugin's skill as a managed
// one. This release does not move such a remote: the builds that can
// (store.UpgradeWith) upgrade the store that pushes to it, and their push
// moves the remote's refs too.

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
	return "on the machine that pushes to " + e.Remote + ", run 'skillstore upgrade' then 'skillstore push' with " + store.UpgradeWith +
		": they move the remote's refs to the new layout; or push a re-created store to a new remote"
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
