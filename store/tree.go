package store

import (
	"fmt"
	"strings"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// regularMode is the mode of a plain, non-executable file.
const regularMode = skillfs.Regular

// File is one file of a skill tree: the one definition every package uses
// (skillfs.File), flat, with a slash-separated path relative to the skill
// folder.
type File = skillfs.File

// SkillFile is the file at the top of every skill tree (skillmd.FileName).
const SkillFile = skillmd.FileName

// sortFiles sorts files by path.
func sortFiles(files []File) { skillfs.Sort(files) }

// FileMap indexes files by path.
func FileMap(files []File) map[string]File { return skillfs.Index(files) }

// TreeHash computes the git tree id of files without writing anything.
// Every file needs Data or an ID.
func TreeHash(files []File) (Hash, error) { return skillfs.TreeID(files) }

// WriteTree queues the blobs (for files with Data) and trees of files and
// returns the root tree id. Files without Data must name a stored blob.
func (tx *Tx) WriteTree(files []File) (Hash, error) {
	withIDs := make([]File, len(files))
	for i, f := range files {
		if f.Data != nil {
			f.ID = tx.pending.Add(gitdb.BlobObject, f.Data)
		}
		withIDs[i] = f
	}
	return skillfs.BuildTree(withIDs, func(b []byte) Hash { return tx.pending.Add(gitdb.TreeObject, b) })
}

// checkTreePath rejects paths git or a checkout could misread.
func checkTreePath(p string) error { return skillfs.CheckPath(p) }

// Files lists the files of a stored tree, flat and sorted, without content.
// A tree deeper or with longer paths than a store holds (skillfs.MaxDepth,
// MaxPathBytes, MaxNameBytes) is a *skillfs.BoundError, found before the
// walk goes below the bound: a chain of thousands of folders costs what
// its first levels cost.
func (r *Reader) Files(tree Hash) ([]File, error) {
	var out []File
	if err := r.walkTree(tree, "", 1, &out); err != nil {
		return nil, err
	}
	sortFiles(out)
	return out, nil
}

// walkTree appends the files of tree h, the folder dir depth levels down,
// to out.
func (r *Reader) walkTree(h Hash, dir string, depth int, out *[]File) error {
	entries, err := r.tree(h)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p, err := skillfs.ChildPath(dir, e.Name, depth)
		if err != nil {
			return err
		}
		if e.Mode == skillfs.Dir {
			if err := r.walkTree(e.ID, p, depth+1, out); err != nil {
				return err
			}
			continue
		}
		*out = append(*out, File{Path: p, Mode: e.Mode, ID: e.ID})
	}
	return nil
}

// LoadFiles lists the files of a stored tree with their content and sizes.
func (r *Reader) LoadFiles(tree Hash) ([]File, error) {
	files, err := r.Files(tree)
	if err != nil {
		return nil, err
	}
	for i := range files {
		data, err := r.Blob(files[i].ID)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", files[i].Path, err)
		}
		files[i].Data = data
		files[i].Size = int64(len(data))
	}
	return files, nil
}

// Subtree returns the tree at dir ("" for root) inside root, and whether
// there is one.
func (r *Reader) Subtree(root Hash, dir string) (Hash, bool, error) {
	h := root
	if dir == "" {
		return h, true, nil
	}
	for _, name := range strings.Split(dir, "/") {
		entries, err := r.tree(h)
		if err != nil {
			return ZeroHash, false, err
		}
		found := false
		for _, e := range entries {
			if e.Name == name && e.Mode == skillfs.Dir {
				h, found = e.ID, true
				break
			}
		}
		if !found {
			return ZeroHash, false, nil
		}
	}
	return h, true, nil
}
