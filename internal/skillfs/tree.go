package skillfs

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// TreeEntry is one entry of a single git tree object: a file, a symlink, a
// subtree (Mode Dir) or a submodule (Mode Gitlink).
type TreeEntry struct {
	Name string
	Mode Mode
	ID   ID
}

// EncodeTree sorts entries in git's order (a subtree sorts as if its name
// ended in "/") and encodes them as the content of a tree object.
func EncodeTree(entries []TreeEntry) []byte {
	sort.Slice(entries, func(i, j int) bool { return treeSortKey(entries[i]) < treeSortKey(entries[j]) })
	var b bytes.Buffer
	for _, e := range entries {
		b.WriteString(e.Mode.GitMode())
		b.WriteByte(' ')
		b.WriteString(e.Name)
		b.WriteByte(0)
		b.Write(e.ID[:])
	}
	return b.Bytes()
}

func treeSortKey(e TreeEntry) string {
	if e.Mode == Dir {
		return e.Name + "/"
	}
	return e.Name
}

// ParseTree decodes the content of a tree object. A mode git does not
// write is an error.
func ParseTree(data []byte) ([]TreeEntry, error) {
	var out []TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("bad tree entry mode")
		}
		mode, ok := ParseGitMode(string(data[:sp]))
		if !ok {
			return nil, fmt.Errorf("bad tree entry mode %q", data[:sp])
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+21 {
			return nil, fmt.Errorf("truncated tree entry")
		}
		e := TreeEntry{Name: string(data[:nul]), Mode: mode}
		copy(e.ID[:], data[nul+1:nul+21])
		out = append(out, e)
		data = data[nul+21:]
	}
	return out, nil
}

// BuildTree encodes files as git tree objects, handing each encoded tree to
// putTree (which stores or merely hashes it and returns its id), and
// returns the root tree's id. Every file must have its blob ID set and a
// path that CheckPath accepts; only Regular, Executable and Symlink files
// can be recorded; a path used twice, or as both a file and a folder, is
// an error.
func BuildTree(files []File, putTree func(encoded []byte) ID) (ID, error) {
	sorted := make([]File, len(files))
	copy(sorted, files)
	Sort(sorted)
	for i := range sorted {
		f := &sorted[i]
		if err := CheckPath(f.Path); err != nil {
			return ZeroID, err
		}
		if !f.Mode.IsFile() {
			return ZeroID, fmt.Errorf("%s: only regular files and symlinks can be stored (mode %s)", f.Path, f.Mode)
		}
		if f.ID.IsZero() {
			return ZeroID, fmt.Errorf("%s: no content and no blob id", f.Path)
		}
		if i > 0 && (sorted[i-1].Path == f.Path || strings.HasPrefix(f.Path, sorted[i-1].Path+"/")) {
			return ZeroID, fmt.Errorf("%s: path used twice", f.Path)
		}
	}
	return buildSubtree(sorted, "", putTree), nil
}

// buildSubtree encodes the tree of the (sorted, checked) files under prefix.
func buildSubtree(files []File, prefix string, putTree func([]byte) ID) ID {
	var entries []TreeEntry
	for i := 0; i < len(files); {
		rest := strings.TrimPrefix(files[i].Path, prefix)
		dir, _, isDir := strings.Cut(rest, "/")
		if !isDir {
			entries = append(entries, TreeEntry{Name: rest, Mode: files[i].Mode, ID: files[i].ID})
			i++
			continue
		}
		sub := prefix + dir + "/"
		j := i
		for j < len(files) && strings.HasPrefix(files[j].Path, sub) {
			j++
		}
		entries = append(entries, TreeEntry{Name: dir, Mode: Dir, ID: buildSubtree(files[i:j], sub, putTree)})
		i = j
	}
	return putTree(EncodeTree(entries))
}

// TreeID computes the git tree id of files without storing anything: the
// id `git write-tree` gives a folder holding them. A file without an ID is
// hashed from its Data (nil Data is empty content).
func TreeID(files []File) (ID, error) {
	withIDs := make([]File, len(files))
	for i, f := range files {
		if f.ID.IsZero() {
			f.ID = BlobID(f.Data)
		}
		withIDs[i] = f
	}
	return BuildTree(withIDs, func(b []byte) ID { return HashObject("tree", b) })
}
