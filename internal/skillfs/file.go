package skillfs

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"
)

// Mode is the kind of an entry in a skill tree, as git records it.
type Mode uint8

const (
	// Regular is a plain file (git mode 100644).
	Regular Mode = iota
	// Executable is a file with its execute bit (git mode 100755).
	Executable
	// Symlink is a symbolic link; a File's Data is the link's target (git
	// mode 120000).
	Symlink
	// Special is a device, socket or FIFO found in a folder on disk. It is
	// listed so that the safety check can refuse it by name; no stored tree
	// holds one.
	Special
	// Dir is a subtree: it appears only in tree entries ([TreeEntry]),
	// never as a File.
	Dir
	// Gitlink is a submodule commit in a tree (git mode 160000); skills
	// cannot hold one.
	Gitlink
)

// String names the mode.
func (m Mode) String() string {
	switch m {
	case Regular:
		return "regular"
	case Executable:
		return "executable"
	case Symlink:
		return "symlink"
	case Special:
		return "special"
	case Dir:
		return "directory"
	case Gitlink:
		return "submodule"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// GitMode is the octal mode git writes in a tree for m ("100644",
// "100755", "120000", "40000", "160000"); "special" for Special, which git
// cannot record.
func (m Mode) GitMode() string {
	switch m {
	case Regular:
		return "100644"
	case Executable:
		return "100755"
	case Symlink:
		return "120000"
	case Dir:
		return "40000"
	case Gitlink:
		return "160000"
	}
	return "special"
}

// ParseGitMode turns a git tree mode into a Mode. Git also accepts the
// historical group-writable file mode 100664 as a regular file.
func ParseGitMode(s string) (Mode, bool) {
	switch s {
	case "100644", "100664":
		return Regular, true
	case "100755":
		return Executable, true
	case "120000":
		return Symlink, true
	case "40000", "040000":
		return Dir, true
	case "160000":
		return Gitlink, true
	}
	return 0, false
}

// IsFile reports whether m is a mode a skill version can hold: a regular or
// executable file, or a symlink.
func (m Mode) IsFile() bool { return m == Regular || m == Executable || m == Symlink }

// File is one file of a skill folder. Trees are handled flat, as a list of
// files with slash-separated paths relative to the skill folder (SKILL.md
// sits at the root); directories exist only in git's encoding.
type File struct {
	// Path is slash-separated and relative to the skill folder.
	Path string `json:"path"`
	// Mode is Regular or Executable for a file, Symlink for a link (Data
	// holds its target); a folder read from disk may also yield Special.
	Mode Mode `json:"-"`
	// Size is the length of the content in bytes.
	Size int64 `json:"size"`
	// ID is the git blob id of the content; zero until computed.
	ID ID `json:"-"`
	// Data is the content; nil when not loaded.
	Data []byte `json:"-"`
}

// Executable reports whether the file has its execute bit.
func (f File) Executable() bool { return f.Mode == Executable }

// ModeString is the mode as git prints it ("100644", "100755", "120000").
func (f File) ModeString() string { return f.Mode.GitMode() }

// SameContent reports whether f and g have the same mode and content
// (compared by blob id where both have one, else by bytes).
func (f File) SameContent(g File) bool {
	if f.Mode != g.Mode {
		return false
	}
	if !f.ID.IsZero() && !g.ID.IsZero() {
		return f.ID == g.ID
	}
	return bytes.Equal(f.Data, g.Data)
}

// WithID returns f with ID set from Data (when it has Data and no ID yet).
func (f File) WithID() File {
	if f.ID.IsZero() && f.Data != nil {
		f.ID = BlobID(f.Data)
	}
	return f
}

// Sort sorts files by path.
func Sort(files []File) {
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
}

// Index maps files by path.
func Index(files []File) map[string]File {
	m := make(map[string]File, len(files))
	for _, f := range files {
		m[f.Path] = f
	}
	return m
}

// Find returns the file at path p.
func Find(files []File, p string) (File, bool) {
	for _, f := range files {
		if f.Path == p {
			return f, true
		}
	}
	return File{}, false
}

// CheckPath rejects a path that cannot name a file inside a skill folder:
// empty, absolute, not clean, with "." or ".." components, a component
// some filesystem resolves to ".git" ([IsDotGit]), a backslash or a NUL,
// or past a bound of a tree's shape ([CheckBounds]: a *BoundError).
func CheckPath(p string) error {
	if p == "" {
		return fmt.Errorf("empty file path")
	}
	if err := CheckBounds(p); err != nil {
		return err
	}
	if strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.ContainsAny(p, "\\\x00") {
		return fmt.Errorf("%q: not a clean, relative, slash-separated path", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == "." || part == ".." || IsDotGit(part) {
			return fmt.Errorf("%q: path component %q is not allowed", p, part)
		}
	}
	return nil
}
