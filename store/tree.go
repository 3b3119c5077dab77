package store

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// regularMode is the mode of a plain, non-executable file.
const regularMode = filemode.Regular

// File is one file of a skill tree. Trees are handled flat, as a list of
// files with slash-separated paths; directories exist only in git's encoding.
type File struct {
	// Path is slash-separated and relative to the skill folder.
	Path string `json:"path"`
	// Mode is filemode.Regular or filemode.Executable in a stored tree.
	// A folder on disk may also yield filemode.Symlink (Data holds the
	// target) or filemode.Empty (a device, socket or fifo); the safety
	// check rejects both.
	Mode filemode.FileMode `json:"-"`
	Size int64             `json:"size"`
	// Hash is the blob id; zero until computed.
	Hash Hash `json:"-"`
	// Data is the content; nil when not loaded.
	Data []byte `json:"-"`
}

// Executable reports whether the file has its executable bit.
func (f File) Executable() bool { return f.Mode == filemode.Executable }

// ModeString is the mode as git prints it ("100644", "100755").
func (f File) ModeString() string {
	if f.Mode == filemode.Empty {
		return "special"
	}
	return gitMode(f.Mode)
}

// SortFiles sorts files by path.
func SortFiles(files []File) {
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
}

// FileMap indexes files by path.
func FileMap(files []File) map[string]File {
	m := make(map[string]File, len(files))
	for _, f := range files {
		m[f.Path] = f
	}
	return m
}

// TreeHash computes the git tree id of files without writing anything.
// Every file needs Data or Hash.
func TreeHash(files []File) (Hash, error) {
	return buildTree(files, func(t plumbing.ObjectType, data []byte) Hash { return hashObject(t, data) })
}

// WriteTree queues the blobs (for files with Data) and trees of files and
// returns the root tree id. Files without Data must name a stored blob.
func (tx *Tx) WriteTree(files []File) (Hash, error) {
	return buildTree(files, tx.pending.add)
}

func buildTree(files []File, put func(plumbing.ObjectType, []byte) Hash) (Hash, error) {
	sorted := make([]File, len(files))
	copy(sorted, files)
	SortFiles(sorted)
	for i := range sorted {
		f := &sorted[i]
		if err := checkTreePath(f.Path); err != nil {
			return ZeroHash, err
		}
		if f.Mode != filemode.Regular && f.Mode != filemode.Executable {
			return ZeroHash, fmt.Errorf("%s: only regular files can be stored (mode %s)", f.Path, f.ModeString())
		}
		if f.Data != nil {
			f.Hash = put(plumbing.BlobObject, f.Data)
		} else if f.Hash.IsZero() {
			return ZeroHash, fmt.Errorf("%s: no content and no blob id", f.Path)
		}
		if i > 0 && (sorted[i-1].Path == f.Path || strings.HasPrefix(f.Path, sorted[i-1].Path+"/")) {
			return ZeroHash, fmt.Errorf("%s: path used twice", f.Path)
		}
	}
	return buildSubtree(sorted, "", put), nil
}

// buildSubtree writes the tree of the files under prefix (sorted, checked).
func buildSubtree(files []File, prefix string, put func(plumbing.ObjectType, []byte) Hash) Hash {
	var entries []treeEntry
	for i := 0; i < len(files); {
		rest := strings.TrimPrefix(files[i].Path, prefix)
		dir, _, isDir := strings.Cut(rest, "/")
		if !isDir {
			entries = append(entries, treeEntry{name: rest, mode: files[i].Mode, hash: files[i].Hash})
			i++
			continue
		}
		sub := prefix + dir + "/"
		j := i
		for j < len(files) && strings.HasPrefix(files[j].Path, sub) {
			j++
		}
		entries = append(entries, treeEntry{name: dir, mode: filemode.Dir, hash: buildSubtree(files[i:j], sub, put)})
		i = j
	}
	return put(plumbing.TreeObject, encodeTree(entries))
}

// checkTreePath rejects paths git or a checkout could misread: empty,
// absolute, with "." or ".." components, or with backslashes or NULs.
func checkTreePath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") {
		return fmt.Errorf("%q: not a relative slash-separated path", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." || strings.EqualFold(part, ".git") {
			return fmt.Errorf("%q: path component %q is not allowed", p, part)
		}
	}
	return nil
}

// Files lists the files of a stored tree, flat and sorted, without content.
func (r *Reader) Files(tree Hash) ([]File, error) {
	var out []File
	if err := r.walkTree(tree, "", &out); err != nil {
		return nil, err
	}
	SortFiles(out)
	return out, nil
}

func (r *Reader) walkTree(h Hash, prefix string, out *[]File) error {
	entries, err := r.tree(h)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := path.Join(prefix, e.name)
		if e.mode == filemode.Dir {
			if err := r.walkTree(e.hash, p, out); err != nil {
				return err
			}
			continue
		}
		*out = append(*out, File{Path: p, Mode: e.mode, Hash: e.hash})
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
		data, err := r.Blob(files[i].Hash)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", files[i].Path, err)
		}
		files[i].Data = data
		files[i].Size = int64(len(data))
	}
	return files, nil
}
