package reload

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Kind is the type of an entry in a skill tree, as git records it.
type Kind uint8

const (
	// Regular is a plain file (git mode 100644).
	Regular Kind = iota
	// Executable is a file with the user execute bit (git mode 100755).
	Executable
	// Symlink is a symbolic link; its Data is the link target (git mode 120000).
	Symlink
)

func (k Kind) String() string {
	switch k {
	case Regular:
		return "file"
	case Executable:
		return "executable"
	case Symlink:
		return "symlink"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// gitMode is the mode git writes for k in a tree object.
func (k Kind) gitMode() string {
	switch k {
	case Executable:
		return "100755"
	case Symlink:
		return "120000"
	}
	return "100644"
}

// File is one entry of a skill folder: a regular or executable file with its
// content, or a symlink with its target. Path is slash-separated and relative
// to the skill folder (SKILL.md sits at the root).
type File struct {
	Path string
	Kind Kind
	Data []byte
}

// Skill is a skill folder to export: its name (the folder name in a target)
// and its files. Callers (the CLI glue over the store) build it from a
// published version; reload never reads the store itself.
type Skill struct {
	Name  string
	Files []File
	// Tree, when set, is the git tree ID of the files as the store knows
	// it. If export last wrote that very tree, the files are not needed.
	Tree ID
	// Load, when Files is nil, is called for the files only if export
	// needs them, so that unchanged skills are never read from the store.
	Load func() ([]File, error)
}

// files returns s.Files, loading them if needed.
func (s Skill) files() ([]File, error) {
	if s.Files != nil || s.Load == nil {
		return s.Files, nil
	}
	return s.Load()
}

// ID is a git object ID (SHA-1). The zero ID means "no tree": a skill that
// is not installed.
type ID [sha1.Size]byte

// String returns the ID in hex, or "" for the zero ID.
func (id ID) String() string {
	if id.IsZero() {
		return ""
	}
	return hex.EncodeToString(id[:])
}

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText encodes the ID as hex ("" for the zero ID).
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText decodes a hex ID; "" gives the zero ID.
func (id *ID) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*id = ID{}
		return nil
	}
	p, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = p
	return nil
}

// ParseID parses a 40-digit hex object ID.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 2*len(id) {
		return id, fmt.Errorf("object id %q: want %d hex digits", s, 2*len(id))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("object id %q: %w", s, err)
	}
	return id, nil
}

// BlobID is the git blob ID of data: sha1("blob <len>\x00" + data).
func BlobID(data []byte) ID {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	var id ID
	h.Sum(id[:0])
	return id
}

// Entry is one file of a Tree, reduced to what identifies it.
type Entry struct {
	Path string
	Kind Kind
	Blob ID
}

// Tree is the identity of a skill folder: its entries sorted by path and the
// git tree ID of the folder. Two folders with the same ID hold the same
// files, kinds and contents, so comparing trees is comparing IDs. The ID is
// the one git computes (git write-tree), so it matches the store's tree IDs.
type Tree struct {
	ID      ID
	Entries []Entry
}

// Lookup returns the entry at path p.
func (t *Tree) Lookup(p string) (Entry, bool) {
	if t == nil {
		return Entry{}, false
	}
	i := sort.Search(len(t.Entries), func(i int) bool { return t.Entries[i].Path >= p })
	if i < len(t.Entries) && t.Entries[i].Path == p {
		return t.Entries[i], true
	}
	return Entry{}, false
}

// TreeID returns t's ID, or the zero ID for a nil tree.
func (t *Tree) TreeID() ID {
	if t == nil {
		return ID{}
	}
	return t.ID
}

// NewTree builds the Tree of files. Files that Ignored reports (skillstore's
// bookkeeping, editor temporary files) are left out, so a tree never depends
// on them. Paths must be clean, relative and unique.
func NewTree(files []File) (*Tree, error) {
	entries := make([]Entry, 0, len(files))
	for _, f := range files {
		if err := checkPath(f.Path); err != nil {
			return nil, err
		}
		if Ignored(f.Path) {
			continue
		}
		if f.Kind > Symlink {
			return nil, fmt.Errorf("%s: unknown kind %d", f.Path, f.Kind)
		}
		entries = append(entries, Entry{Path: f.Path, Kind: f.Kind, Blob: BlobID(f.Data)})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	for i := 1; i < len(entries); i++ {
		prev, cur := entries[i-1].Path, entries[i].Path
		if prev == cur {
			return nil, fmt.Errorf("%s: listed twice", cur)
		}
	}
	root := &dirNode{}
	for _, e := range entries {
		if err := root.insert(e.Path, e); err != nil {
			return nil, err
		}
	}
	return &Tree{ID: root.hash(), Entries: entries}, nil
}

// checkPath rejects paths that cannot be a file inside a skill folder.
func checkPath(p string) error {
	if p == "" {
		return fmt.Errorf("empty file path")
	}
	if strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.ContainsRune(p, 0) {
		return fmt.Errorf("%q: file path must be clean and relative", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == "." || part == ".." || strings.EqualFold(part, ".git") {
			return fmt.Errorf("%q: file path must not contain %q", p, part)
		}
	}
	return nil
}

// dirNode is a directory while a tree ID is computed.
type dirNode struct {
	files map[string]Entry
	dirs  map[string]*dirNode
}

func (d *dirNode) insert(rel string, e Entry) error {
	name, rest, isDir := strings.Cut(rel, "/")
	if !isDir {
		if _, ok := d.dirs[name]; ok {
			return fmt.Errorf("%s: is both a file and a directory", e.Path)
		}
		if d.files == nil {
			d.files = map[string]Entry{}
		}
		d.files[name] = e
		return nil
	}
	if _, ok := d.files[name]; ok {
		return fmt.Errorf("%s: is both a file and a directory", strings.TrimSuffix(e.Path, "/"+rest))
	}
	if d.dirs == nil {
		d.dirs = map[string]*dirNode{}
	}
	sub := d.dirs[name]
	if sub == nil {
		sub = &dirNode{}
		d.dirs[name] = sub
	}
	return sub.insert(rest, e)
}

// hash encodes d as a git tree object and returns its ID. Git sorts entries
// by name, comparing a directory as if its name ended in "/".
func (d *dirNode) hash() ID {
	type item struct {
		key, name, mode string
		id              ID
	}
	items := make([]item, 0, len(d.files)+len(d.dirs))
	for name, e := range d.files {
		items = append(items, item{key: name, name: name, mode: e.Kind.gitMode(), id: e.Blob})
	}
	for name, sub := range d.dirs {
		items = append(items, item{key: name + "/", name: name, mode: "40000", id: sub.hash()})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].key < items[j].key })
	var body bytes.Buffer
	for _, it := range items {
		body.WriteString(it.mode)
		body.WriteByte(' ')
		body.WriteString(it.name)
		body.WriteByte(0)
		body.Write(it.id[:])
	}
	h := sha1.New()
	fmt.Fprintf(h, "tree %d\x00", body.Len())
	h.Write(body.Bytes())
	var id ID
	h.Sum(id[:0])
	return id
}

// BookkeepingDir is the hidden folder skillstore keeps inside a target for
// its own records, staging and retired versions. It is never a skill.
const BookkeepingDir = ".skillstore"

// Ignored reports whether the file at slash-separated path p is not part of
// a skill: skillstore's own bookkeeping (names starting with ".skillstore"),
// a nested .git folder, or an editor's temporary, swap, backup or lock file.
// Export never writes such files, trees never count them, and the watcher
// does not react to them.
func Ignored(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if strings.HasPrefix(part, BookkeepingDir) || part == ".git" {
			return true
		}
	}
	return isEditorTemp(path.Base(p))
}

// isEditorTemp reports names editors write next to a file while saving:
// vim swap files and its 4913 probe, backups ending in ~, emacs lock and
// autosave files, JetBrains safe-write files, and macOS folder metadata.
func isEditorTemp(name string) bool {
	switch {
	case name == "4913", name == ".DS_Store":
		return true
	case strings.HasSuffix(name, "~"):
		return true
	case strings.HasPrefix(name, ".#"):
		return true
	case len(name) > 1 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"):
		return true
	case strings.HasPrefix(name, ".") && (strings.HasSuffix(name, ".swp") || strings.HasSuffix(name, ".swx") || strings.HasSuffix(name, ".swo")):
		return true
	case strings.HasSuffix(name, "___jb_tmp___"), strings.HasSuffix(name, "___jb_old___"):
		return true
	}
	return false
}
