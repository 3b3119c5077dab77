package candidates

import (
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
