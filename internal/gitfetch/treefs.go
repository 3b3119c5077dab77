package gitfetch

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// TreeFS is a read-only [pluginfmt.PluginFS] over a git tree, so a fetched plugin's
// layout is read straight from the store's objects without a checkout.
//
// Each folder's tree object is decoded once and indexed by entry name, so
// reading a plugin costs O(entries) however its files are looked up:
// go-git's Tree.FindEntry decodes every folder on the way again on each
// call (its own cache skips folders one level down), which made a folder
// of 100,000 files cost 100,000 decodes of that folder. A TreeFS is safe
// for use by one goroutine at a time.
type TreeFS struct {
	s    storer.EncodedObjectStorer
	root *object.Tree
	dirs map[string]*treeDir // decoded folders by slash path, "." the root
}

// treeDir is one decoded folder with its entries indexed by name.
type treeDir struct {
	tree   *object.Tree
	byName map[string]int // entry name -> index in tree.Entries
}

// NewTreeFS returns the files of tree, read from s, as a [pluginfmt.PluginFS].
func NewTreeFS(s storer.EncodedObjectStorer, tree *object.Tree) *TreeFS {
	return &TreeFS{s: s, root: tree, dirs: map[string]*treeDir{".": newTreeDir(tree)}}
}

var (
	_ pluginfmt.PluginFS = (*TreeFS)(nil)
)

func newTreeDir(tree *object.Tree) *treeDir {
	d := &treeDir{tree: tree, byName: make(map[string]int, len(tree.Entries))}
	for i, e := range tree.Entries {
		d.byName[e.Name] = i
	}
	return d
}

// dir is the decoded folder at the clean slash path name, decoded on first
// use (with the folders above it) and kept.
func (t *TreeFS) dir(name string) (*treeDir, error) {
	if d, ok := t.dirs[name]; ok {
		return d, nil
	}
	parent, err := t.dir(path.Dir(name))
	if err != nil {
		return nil, err
	}
	i, ok := parent.byName[path.Base(name)]
	if !ok || parent.tree.Entries[i].Mode != filemode.Dir {
		return nil, fs.ErrNotExist
	}
	tree, err := object.GetTree(t.s, parent.tree.Entries[i].Hash)
	if err != nil {
		return nil, err
	}
	d := newTreeDir(tree)
	t.dirs[name] = d
	return d, nil
}

func (t *TreeFS) entry(op, name string) (*object.TreeEntry, error) {
	if err := skillfs.CheckBounds(name); err != nil {
		// No store holds such a path: its folders are never decoded.
		return nil, &fs.PathError{Op: op, Path: skillfs.ShortPath(name), Err: err}
	}
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &object.TreeEntry{Name: ".", Mode: filemode.Dir, Hash: t.root.Hash}, nil
	}
	d, err := t.dir(path.Dir(name))
	if err != nil {
		// A folder whose tree object cannot be read is no missing path:
		// the caller must not take it for one.
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	i, ok := d.byName[path.Base(name)]
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return &d.tree.Entries[i], nil
}

// TreeID is the git object id of the entry at name (a subtree's id for a
// folder).
func (t *TreeFS) TreeID(name string) (skillfs.ID, error) {
	e, err := t.entry("open", name)
	if err != nil {
		return skillfs.ZeroID, err
	}
	return skillfs.ID(e.Hash), nil
}

// Lstat describes name without following a symlink.
func (t *TreeFS) Lstat(name string) (fs.FileInfo, error) {
	e, err := t.entry("lstat", name)
	if err != nil {
		return nil, err
	}
	return t.info(e)
}

// ReadLink returns a symlink's target.
func (t *TreeFS) ReadLink(name string) (string, error) {
	e, err := t.entry("readlink", name)
	if err != nil {
		return "", err
	}
	if e.Mode != filemode.Symlink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	data, err := t.blob(e)
	return string(data), err
}

// ReadFile returns a regular file's contents. Symlinks are not followed.
func (t *TreeFS) ReadFile(name string) ([]byte, error) {
	e, err := t.entry("read", name)
	if err != nil {
		return nil, err
	}
	if !e.Mode.IsFile() || e.Mode == filemode.Symlink {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	return t.blob(e)
}

// ReadDir lists a folder sorted by name.
func (t *TreeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := t.entry("readdir", name)
	if err != nil {
		return nil, err
	}
	if e.Mode != filemode.Dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	d, err := t.dir(name)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	// An entry's size is looked up only when its Info is asked for: a
	// walk that stops early (at a file-count cap) or skips a folder's
	// files pays nothing for them.
	out := make([]fs.DirEntry, len(d.tree.Entries))
	for i := range d.tree.Entries {
		out[i] = treeDirEntry{t: t, e: &d.tree.Entries[i]}
	}
	return out, nil
}

// Open opens a file or folder for reading.
func (t *TreeFS) Open(name string) (fs.File, error) {
	e, err := t.entry("open", name)
	if err != nil {
		return nil, err
	}
	info, err := t.info(e)
	if err != nil {
		return nil, err
	}
	f := &treeFile{info: info}
	if e.Mode == filemode.Dir {
		if f.entries, err = t.ReadDir(name); err != nil {
			return nil, err
		}
		return f, nil
	}
	data, err := t.blob(e)
	if err != nil {
		return nil, err
	}
	f.r = bytes.NewReader(data)
	return f, nil
}

func (t *TreeFS) blob(e *object.TreeEntry) ([]byte, error) {
	b, err := object.GetBlob(t.s, e.Hash)
	if err != nil {
		return nil, err
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

func (t *TreeFS) info(e *object.TreeEntry) (fs.FileInfo, error) {
	fi := &treeInfo{name: path.Base(e.Name), mode: entryMode(e.Mode)}
	if fi.mode.IsRegular() || fi.mode&fs.ModeSymlink != 0 {
		size, err := t.s.EncodedObjectSize(e.Hash)
		if err != nil {
			return nil, err
		}
		fi.size = size
	}
	return fi, nil
}

// entryMode is the fs.FileMode of a git tree entry's mode.
func entryMode(m filemode.FileMode) fs.FileMode {
	switch m {
	case filemode.Dir:
		return fs.ModeDir | 0o755
	case filemode.Symlink:
		return fs.ModeSymlink | 0o777
	case filemode.Executable:
		return 0o755
	case filemode.Submodule:
		return fs.ModeIrregular
	}
	return 0o644
}

// treeDirEntry is a folder entry whose FileInfo (and the object size it
// needs) is made when asked for.
type treeDirEntry struct {
	t *TreeFS
	e *object.TreeEntry
}

func (d treeDirEntry) Name() string               { return d.e.Name }
func (d treeDirEntry) IsDir() bool                { return d.e.Mode == filemode.Dir }
func (d treeDirEntry) Type() fs.FileMode          { return entryMode(d.e.Mode).Type() }
func (d treeDirEntry) Info() (fs.FileInfo, error) { return d.t.info(d.e) }

type treeInfo struct {
	name string
	size int64
	mode fs.FileMode
}

func (i *treeInfo) Name() string       { return i.name }
func (i *treeInfo) Size() int64        { return i.size }
func (i *treeInfo) Mode() fs.FileMode  { return i.mode }
func (i *treeInfo) ModTime() time.Time { return time.Time{} }
func (i *treeInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *treeInfo) Sys() any           { return nil }

type treeFile struct {
	info    fs.FileInfo
	r       *bytes.Reader
	entries []fs.DirEntry
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *treeFile) Close() error               { return nil }
func (f *treeFile) Read(p []byte) (int, error) {
	if f.r == nil {
		return 0, &fs.PathError{Op: "read", Path: f.info.Name(), Err: fs.ErrInvalid}
	}
	return f.r.Read(p)
}

// ReadDir makes a folder an fs.ReadDirFile.
func (f *treeFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		out := f.entries
		f.entries = nil
		return out, nil
	}
	if len(f.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(f.entries))
	out := f.entries[:n]
	f.entries = f.entries[n:]
	return out, nil
}
