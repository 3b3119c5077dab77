package store

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// SourceKind is the kind of a plugin source.
type SourceKind string

// Source kinds: a folder read as it is on disk, or a git repository fetched
// into the store.
const (
	SourceFolder SourceKind = "folder"
	SourceGit    SourceKind = "git"
)

// Source is where a plugin's files come from.
type Source struct {
	Kind     SourceKind `json:"kind"`               // SourceFolder or SourceGit
	URL      string     `json:"url"`                // absolute folder path or git URL (local paths made absolute)
	Ref      string     `json:"ref,omitempty"`      // branch, tag or commit as given; "" is the remote HEAD
	Selector string     `json:"selector,omitempty"` // plugin of a marketplace ("SOURCE#name")
	// Path is the folder inside a git source where the plugin (or
	// marketplace) lives, slash-separated; "" is the repository's top. A
	// folder source has none: its subfolder is part of URL.
	Path string `json:"path,omitempty"`
}

// String renders the source the way a user types it.
func (s Source) String() string {
	out := s.URL
	if s.Selector != "" {
		out += "#" + s.Selector
	}
	if s.Path != "" {
		out += " (folder " + s.Path + ")"
	}
	return out
}

// WithPath returns the source narrowed to the folder dir inside it: for a
// git source the folder is read from each fetched commit, for a folder
// source it becomes part of the folder's path. dir is slash-separated and
// relative; one that leaves the source ("..", absolute) is refused.
func (s Source) WithPath(dir string) (Source, error) {
	clean, err := cleanSourcePath(dir)
	if err != nil || clean == "" {
		return s, err
	}
	if s.Kind == SourceFolder {
		full := filepath.Join(s.URL, filepath.FromSlash(clean))
		info, err := os.Stat(full)
		if err != nil {
			return Source{}, fmt.Errorf("plugin source %s: folder %s: %w", s.URL, clean, errors.Unwrap(err))
		}
		if !info.IsDir() {
			return Source{}, fmt.Errorf("plugin source %s: %s is not a folder", s.URL, clean)
		}
		s.URL = full
		if isGitRepo(full) {
			s.Kind = SourceGit
		}
		return s, nil
	}
	s.Path = clean
	return s, nil
}

// cleanSourcePath checks a folder inside a source: relative, inside it,
// slash-separated. "" and "." mean the source's top and give "".
func cleanSourcePath(dir string) (string, error) {
	d := strings.Trim(strings.ReplaceAll(dir, "\\", "/"), "/")
	if d == "" || d == "." {
		return "", nil
	}
	if strings.HasPrefix(dir, "/") || (len(dir) > 1 && dir[1] == ':') {
		return "", fmt.Errorf("folder %q inside a source must be a relative path", dir)
	}
	clean := path.Clean(d)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("folder %q leaves the source", dir)
	}
	return clean, nil
}

// Compiled on first use rather than at start-up, which every command pays.
var (
	schemeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9+.-]*://`) })
	scpRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^/@:]+@[^/:]+:`) }) // git@host:owner/repo
)

// ParseSource reads a plugin source argument. A URL (scheme://, user@host:)
// is a git source. A local path is a git source when it is the top of a git
// repository (its committed files at ref are used) and a folder source
// otherwise (its files on disk are used). A "#name" suffix selects one plugin
// of a marketplace.
func ParseSource(arg, ref string) (Source, error) {
	loc, sel, _ := strings.Cut(arg, "#")
	if loc == "" {
		return Source{}, fmt.Errorf("empty plugin source %q", arg)
	}
	src := Source{URL: loc, Ref: ref, Selector: sel}
	if schemeRE().MatchString(loc) || scpRE().MatchString(loc) {
		src.Kind = SourceGit
		return src, nil
	}
	abs, err := filepath.Abs(loc)
	if err != nil {
		return Source{}, fmt.Errorf("plugin source %s: %w", loc, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return Source{}, fmt.Errorf("plugin source %s: %w", loc, errors.Unwrap(err))
	}
	if !info.IsDir() {
		return Source{}, fmt.Errorf("plugin source %s is not a folder or a git repository", loc)
	}
	src.URL = abs
	src.Kind = SourceFolder
	if isGitRepo(abs) {
		src.Kind = SourceGit
	} else if ref != "" {
		return Source{}, fmt.Errorf("plugin source %s is a folder, not a git repository: --ref needs a git repository", loc)
	}
	return src, nil
}

// isGitRepo reports whether dir is the top of a git work tree or a bare repository.
func isGitRepo(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	for _, f := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

// SourceRef is where the fetched commit of a plugin's git source is kept, so
// its objects stay reachable (git gc keeps them) and sync knows what it saw.
func SourceRef(plugin string) string { return SourceRefPrefix + plugin + "/head" }

// SourceRefPrefix starts every plugin's source ref.
const SourceRefPrefix = "refs/skillstore/sources/"
