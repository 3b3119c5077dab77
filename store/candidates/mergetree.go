package candidates

import (
	"context"
	"fmt"

	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/store"
)

// LoadMergeTree reads a stored tree, with content, as a merge.Tree; the
// zero hash is the empty tree (no common base).
func LoadMergeTree(r *store.Reader, tree store.Hash) (merge.Tree, error) {
	if tree.IsZero() {
		return merge.Tree{}, nil
	}
	files, err := r.LoadFiles(tree)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if !f.Mode.IsFile() {
			return nil, fmt.Errorf("%s: cannot merge a file of mode %s", f.Path, f.Mode)
		}
	}
	return merge.TreeOf(files), nil
}

// WriteAhead runs write, a store write (an Update, or sync's
// UpdateIfWrites) whose three-way merges are given ahead (merge.Options's
// Ahead), so that the large ones are computed with no lock held: write
// runs once to plan, ending with ahead.Err() before it writes, and then,
// the merges computed, once more to write (see merge.Ahead). Every command
// that merges trees in a store write goes through it.
func WriteAhead(ctx context.Context, s *store.Store, write func(ahead *merge.Ahead) error) error {
	ahead := merge.NewAhead()
	ahead.BeforeMerges = s.Options().BeforeMergeAhead
	return ahead.Write(ctx, func() error { return write(ahead) })
}
