package skillfs

import (
	"bytes"
	"fmt"
	"strings"
)

// CheckTree applies `git fsck --strict`'s rules for one tree object to its
// raw content, so that a tree a plugin or a remote built with git plumbing
// never enters a store that git, a checkout or a hosting server would then
// refuse or misread. It rejects an empty name, a name holding "/" or "\",
// ".", "..", and every spelling of ".git" some filesystem resolves to the
// repository folder ([IsDotGit]), a mode git does not write in strict mode
// (anything but 100644, 100755, 120000, 40000 and 160000, and the
// historical 100664 git still reads; zero-padded modes are rejected), entries out of git's order, and a name used twice.
func CheckTree(data []byte) error {
	var prev string
	seen := map[string]bool{}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return fmt.Errorf("bad tree entry mode")
		}
		modeText := string(data[:sp])
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+21 {
			return fmt.Errorf("truncated tree entry")
		}
		name := string(data[:nul])
		data = data[nul+21:]
		mode, ok := strictGitMode(modeText)
		if !ok {
			return fmt.Errorf("entry %q has mode %q, which git does not write", name, modeText)
		}
		if err := CheckEntryName(name); err != nil {
			return err
		}
		if seen[name] {
			return fmt.Errorf("entry %q appears twice", name)
		}
		seen[name] = true
		key := treeSortKey(TreeEntry{Name: name, Mode: mode})
		if prev != "" && key <= prev {
			return fmt.Errorf("entry %q is out of git's order (after %q)", name, strings.TrimSuffix(prev, "/"))
		}
		prev = key
	}
	return nil
}

// strictGitMode accepts the modes ParseGitMode does except a zero-padded
// one ("040000"), which git fsck --strict refuses.
func strictGitMode(s string) (Mode, bool) {
	if strings.HasPrefix(s, "0") {
		return 0, false
	}
	return ParseGitMode(s)
}

// CheckEntryName rejects a tree entry name (one path component) that a
// checkout could misread: empty, holding "/", "\" or NUL, ".", "..", or a
// name [IsDotGit] reports.
func CheckEntryName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty entry name")
	case strings.ContainsAny(name, "/\\\x00"):
		return fmt.Errorf("entry %q holds a path separator: not a plain file name", name)
	case name == "." || name == "..":
		return fmt.Errorf("entry %q is not a file name", name)
	case IsDotGit(name):
		return fmt.Errorf("entry %q is a spelling of .git", name)
	}
	return nil
}

// IsDotGit reports whether some filesystem git runs on resolves name to
// ".git": any letter case; trailing dots and spaces, which Windows drops;
// the NTFS short name GIT~1; an NTFS alternate stream (".git::$DATA");
// and on HFS+ the code points it ignores (zero-width joiners and the like)
// anywhere in the name.
func IsDotGit(name string) bool {
	n := stripHFSIgnorable(name)
	if i := strings.IndexByte(n, ':'); i >= 0 {
		n = n[:i]
	}
	n = strings.TrimRight(n, ". ")
	return strings.EqualFold(n, ".git") || strings.EqualFold(n, "git~1")
}

// stripHFSIgnorable removes the code points HFS+ ignores when comparing
// names: U+200C to U+200F, U+202A to U+202E, U+206A to U+206F and U+FEFF.
func stripHFSIgnorable(name string) string {
	if isASCIIString(name) {
		return name
	}
	return strings.Map(func(r rune) rune {
		if r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff {
			return -1
		}
		return r
	}, name)
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// CollisionError reports two paths of one tree that are one name on
// macOS's and Windows's file systems (see FoldName): a checkout there
// keeps one of them, or mixes the two.
type CollisionError struct {
	A, B string
}

func (e *CollisionError) Error() string {
	a, b := QuotePath(e.A), QuotePath(e.B)
	if !isASCIIString(e.A) || !isASCIIString(e.B) {
		a, b = QuoteBytes(e.A), QuoteBytes(e.B) // two spellings may look alike
	}
	return fmt.Sprintf("%s and %s are one name on macOS and Windows (letter case or Unicode normalization differs): rename one", a, b)
}

// CheckCollisions reports the first two of paths (slash-separated, as a
// tree holds them) whose names collide under FoldName at the same place: two
// files (SKILL.md and skill.md), or a folder and another folder or file
// (Docs/a and docs/b collide as Docs and docs), as a *CollisionError
// naming both. Nil when none do. It folds each name once and looks it up
// under its folder's number, so a path costs its length, however deep.
func CheckCollisions(paths []string) error {
	type key struct {
		folder int32  // the number of the folder holding the name (0: the top)
		folded string // the name, folded
	}
	type entry struct {
		id   int32  // the number this name has as a folder
		name string // the name as first given
		path string // the path up to it, as first given
	}
	seen := map[key]entry{}
	for _, p := range paths {
		folder := int32(0)
		for start := 0; start <= len(p); {
			end := strings.IndexByte(p[start:], '/')
			if end < 0 {
				end = len(p)
			} else {
				end += start
			}
			name := p[start:end]
			k := key{folder, FoldName(name)}
			prev, ok := seen[k]
			if !ok {
				prev = entry{id: int32(len(seen) + 1), name: name, path: p[:end]}
				seen[k] = prev
			} else if prev.name != name {
				return &CollisionError{A: prev.path, B: p[:end]}
			}
			folder, start = prev.id, end+1
		}
	}
	return nil
}
