package reload

import (
	"fmt"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Skill is a skill folder to export: its name (the folder name in a target)
// and its files. Callers build it from a published version; reload never
// reads the store itself.
type Skill struct {
	Name  string
	Files []skillfs.File
	// Tree, when set, is the git tree ID of the files as the store knows
	// it. If export last wrote that very tree, the files are not needed.
	Tree skillfs.ID
	// Load, when Files is nil, is called for the files only if export
	// needs them, so that unchanged skills are never read from the store.
	Load func() ([]skillfs.File, error)
	// Origin, when set, names the store's skill and version the folder
	// holds (a plugin's skill; see Origin). When StoreTree is set the
	// files differ from the store's version: Tree is then unused, and an
	// unchanged StoreTree is what lets export skip reading the files.
	Origin
}

// files returns s.Files, loading them if needed.
func (s Skill) files() ([]skillfs.File, error) {
	if s.Files != nil || s.Load == nil {
		return s.Files, nil
	}
	return s.Load()
}

// Tree is the identity of a skill folder: its entries sorted by path (files
// with their blob IDs, without content) and the git tree ID of the folder,
// the one the store computes for the same files. Two folders with the same
// ID hold the same files, modes and contents.
type Tree struct {
	ID      skillfs.ID
	Entries []skillfs.File
}

// Lookup returns the entry at path p.
func (t *Tree) Lookup(p string) (skillfs.File, bool) {
	if t == nil {
		return skillfs.File{}, false
	}
	return skillfs.Find(t.Entries, p)
}

// TreeID returns t's ID, or the zero ID for a nil tree.
func (t *Tree) TreeID() skillfs.ID {
	if t == nil {
		return skillfs.ID{}
	}
	return t.ID
}

// NewTree builds the Tree of files. Files that skillfs.Ignored reports are
// left out, so a tree never depends on them. Paths must be clean, relative
// and unique.
func NewTree(files []skillfs.File) (*Tree, error) {
	entries := make([]skillfs.File, 0, len(files))
	for _, f := range files {
		if err := skillfs.CheckPath(f.Path); err != nil {
			return nil, err
		}
		if skillfs.Ignored(f.Path) {
			continue
		}
		if !f.Mode.IsFile() {
			return nil, fmt.Errorf("%s: %w (%s)", f.Path, ErrUnsupportedFile, f.Mode)
		}
		if f.ID.IsZero() {
			f.ID = skillfs.BlobID(f.Data)
		}
		f.Size = int64(len(f.Data))
		f.Data = nil
		entries = append(entries, f)
	}
	skillfs.Sort(entries)
	for i := 1; i < len(entries); i++ {
		if entries[i-1].Path == entries[i].Path {
			return nil, fmt.Errorf("%s: listed twice", entries[i].Path)
		}
	}
	id, err := skillfs.TreeID(entries)
	if err != nil {
		return nil, err
	}
	return &Tree{ID: id, Entries: entries}, nil
}
