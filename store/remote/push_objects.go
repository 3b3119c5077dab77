package remote

import (
	"fmt"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
)

// objectsToPush lists the objects the remote needs to hold wants, given
// that it holds haves (its ref tips). Commits are walked from wants until a
// commit the remote has; trees and blobs are sent unless the trees of those
// boundary commits hold them. This is git's own edge rule: it looks at the
// few boundary trees instead of the remote's whole history (what go-git's
// revlist walks), so pushing ten new versions reads ten versions, not the
// store. An object the remote has elsewhere may be sent again, which the
// server simply ignores.
func (pr *packedReader) objectsToPush(wants, haves []store.Hash) ([]store.Hash, error) {
	have := make(map[store.Hash]bool, len(haves))
	for _, h := range haves {
		have[h] = true
	}
	seen := map[store.Hash]bool{}
	var commits, boundary []store.Hash
	trees := map[store.Hash]store.Hash{} // commit -> tree
	stack := append([]store.Hash(nil), wants...)
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		if have[h] {
			boundary = append(boundary, h)
			continue
		}
		c, err := pr.commit(h)
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", short(h), err)
		}
		commits = append(commits, h)
		trees[h] = c.Tree
		stack = append(stack, c.Parents...)
	}
	onRemote := map[store.Hash]bool{}
	for _, b := range boundary {
		c, err := pr.commit(b)
		if err != nil {
			continue // the remote has it; this store may not
		}
		if err := pr.markTree(c.Tree, onRemote, nil); err != nil {
			return nil, err
		}
	}
	out := commits
	for _, h := range commits {
		if err := pr.markTree(trees[h], onRemote, &out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// markTree adds tree and everything under it to marked; objects not marked
// before are appended to out when out is not nil.
func (pr *packedReader) markTree(tree store.Hash, marked map[store.Hash]bool, out *[]store.Hash) error {
	if marked[tree] {
		return nil
	}
	marked[tree] = true
	if out != nil {
		*out = append(*out, tree)
	}
	entries, err := pr.tree(tree)
	if err != nil {
		return fmt.Errorf("tree %s: %w", short(tree), err)
	}
	for _, e := range entries {
		if e.Mode == skillfs.Dir {
			if err := pr.markTree(e.ID, marked, out); err != nil {
				return err
			}
			continue
		}
		if e.Mode == skillfs.Gitlink || marked[e.ID] {
			continue
		}
		marked[e.ID] = true
		if out != nil {
			*out = append(*out, e.ID)
		}
	}
	return nil
}
