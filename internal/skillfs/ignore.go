package skillfs

import (
	"path"
	"strings"
)

// Ignored reports whether the file or folder at the slash-separated path p,
// relative to a skill folder, is never part of a skill. It is the one rule
// every reader and writer of skill folders applies (add, import, plugin
// snapshots, capture, status, export, watch), so that a folder, its stored
// version and its exported copy always hold the same files:
//
//   - any path component that is skillstore's bookkeeping (a name starting
//     with ".skillstore"), version-control data (".git"), or a dependency
//     or bytecode cache ("node_modules", "__pycache__");
//   - a file name an editor or the OS writes beside a file: backups ending
//     in "~", vim swap files (".name.swp", ".swo", ".swx") and its "4913"
//     probe, emacs lock and autosave files (".#name", "#name#"), JetBrains
//     safe-write files ("___jb_tmp___", "___jb_old___") and macOS folder
//     metadata (".DS_Store").
func Ignored(p string) bool {
	for rest := p; ; {
		part, after, more := strings.Cut(rest, "/")
		if IgnoredDir(part) {
			return true
		}
		if !more {
			break
		}
		rest = after
	}
	return isEditorLitter(path.Base(p))
}

// IgnoredEntry is Ignored for one entry of a folder whose own path is not
// ignored: what a walk down a skill folder checks at each step, without
// looking at the path again.
func IgnoredEntry(name string, isDir bool) bool {
	return IgnoredDir(name) || (!isDir && isEditorLitter(name))
}

// IgnoredDir reports whether a folder (or file) named name is skipped with
// everything below it, wherever it appears in a skill.
func IgnoredDir(name string) bool {
	switch name {
	case ".git", "node_modules", "__pycache__":
		return true
	}
	return strings.HasPrefix(name, BookkeepingDir)
}

// isEditorLitter reports names editors and the OS write next to a file.
func isEditorLitter(name string) bool {
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

// WithoutIgnored returns files without the ones Ignored reports, reusing
// the slice's backing array only when nothing is dropped.
func WithoutIgnored(files []File) []File {
	for i, f := range files {
		if Ignored(f.Path) {
			out := append([]File{}, files[:i]...)
			for _, g := range files[i+1:] {
				if !Ignored(g.Path) {
					out = append(out, g)
				}
			}
			return out
		}
	}
	return files
}
