package store

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/skillstore/skillstore/merge"
)

// toMergeTree converts a stored skill tree (files with Data) into the merge
// package's form.
func toMergeTree(files []File) (merge.Tree, error) {
	t := make(merge.Tree, len(files))
	for _, f := range files {
		var m merge.Mode
		switch f.Mode {
		case filemode.Regular:
			m = merge.Regular
		case filemode.Executable:
			m = merge.Executable
		case filemode.Symlink:
			m = merge.Symlink
		default:
			return nil, fmt.Errorf("%s: cannot merge a file of mode %s", f.Path, f.ModeString())
		}
		if f.Data == nil && f.Size > 0 {
			return nil, fmt.Errorf("%s: content not loaded", f.Path)
		}
		t[f.Path] = merge.File{Mode: m, Data: f.Data}
	}
	return t, nil
}

// fromMergeTree converts a merged tree back into files for the store.
func fromMergeTree(t merge.Tree) []File {
	files := make([]File, 0, len(t))
	for p, f := range t {
		mode := filemode.Regular
		switch f.Mode {
		case merge.Executable:
			mode = filemode.Executable
		case merge.Symlink:
			mode = filemode.Symlink
		}
		data := f.Data
		if data == nil {
			data = []byte{}
		}
		files = append(files, File{Path: p, Mode: mode, Data: data, Size: int64(len(data)), Hash: HashBlob(data)})
	}
	SortFiles(files)
	return files
}

// loadMergeTree reads a stored tree as a merge.Tree; the zero hash is the
// empty tree (no common base).
func (r *Reader) loadMergeTree(tree Hash) (merge.Tree, error) {
	if tree.IsZero() {
		return merge.Tree{}, nil
	}
	files, err := r.LoadFiles(tree)
	if err != nil {
		return nil, err
	}
	return toMergeTree(files)
}
