package plugins

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/semver"
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
	Kind SourceKind `json:"kind"`          // SourceFolder, SourceGit or another kind of fetchers (source_kinds.go)
	URL  string     `json:"url"`           // absolute folder path, git URL (local paths made absolute), or the http(s) URL of the file, index or npm package
	Ref  string     `json:"ref,omitempty"` // branch, tag or commit as given; "" is the remote HEAD
	// Tags, when set, is the version range of release tags the source
	// follows instead of a ref ("*": every release; "^1.2": 1.2.0 up to
	// below 2.0.0): each fetch takes the newest tag in range (see
	// gitfetch.FetchRelease). Ref is then "".
	Tags string `json:"tags,omitempty"`
	// SHA256 is the digest an archive source's download must have
	// (lowercase hex), "" when none is given.
	SHA256   string `json:"sha256,omitempty"`
	Selector string `json:"selector,omitempty"` // plugin of a marketplace ("SOURCE#name")
	// Path is the folder inside a git source where the plugin (or
	// marketplace) lives, slash-separated; "" is the repository's top. A
	// folder source has none: its subfolder is part of URL.
	Path string `json:"path,omitempty"`
	// Dialect, when set, reads the source through one agent's manifests
	// only (plugin add --dialect; see pluginfmt.Options.Dialect).
	Dialect string `json:"dialect,omitempty"`
}

// String renders the source the way a user types it.
func (s Source) String() string {
	out := s.URL
	if s.Kind == SourceNPM {
		out = "npm:" + npmName(s.URL)
	}
	if s.Tags != "" {
		out += "@" + s.Tags
	}
	if s.Selector != "" {
		out += "#" + s.Selector
	}
	if s.Path != "" {
		out += " (folder " + s.Path + ")"
	}
	if s.Dialect != "" {
		out += " (as " + s.Dialect + ")"
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

// ParseSource is [ParseSourceContext] without a deadline.
func ParseSource(arg, ref string) (Source, error) {
	return ParseSourceContext(context.Background(), arg, ref)
}

// ParseSourceContext reads a plugin source as a user types it (ref is
// --ref, "" for none):
//   - a local path that exists: a git source when it is the top of a git
//     repository (its committed files at ref are used), else a folder
//     source (its files on disk). A local path always wins over the
//     shorthand: write ./owner/repo for a folder of that name.
//   - https://github.com/OWNER/REPO[/tree/REF[/PATH]]: that repository (see
//     [GitHubURL]), at REF, in the folder PATH.
//   - any other URL (scheme://, user@host:path): a git source.
//   - OWNER/REPO that is not a local path: GitHub shorthand for
//     [GitHubURL](OWNER/REPO). Its refs are listed once, so that a typo is
//     told apart at once ([ShorthandError]) from a folder that is missing.
//
// A source holding a control character anywhere is refused
// (gitfetch.CheckURL) before any other use, and a git source's URL is
// kept in canonical form (gitfetch.CanonicalURL: "." and ".." resolved,
// what could be read two ways refused), the form the source policy
// checks and sync fetches.
//
// After '#' comes a plugin of a marketplace (SOURCE#plugin), or a folder
// inside the source when it holds a '/' (SOURCE#plugins/x, SOURCE#tools/
// for a top-level folder: plugin names never hold a '/'), or both
// (SOURCE#plugins/x#plugin). The network is used only to resolve a
// shorthand or a /tree/ address whose ref and path cannot be told apart
// without the remote's refs.
func ParseSourceContext(ctx context.Context, arg, ref string) (Source, error) {
	loc, frag, _ := strings.Cut(arg, "#")
	if loc == "" {
		return Source{}, fmt.Errorf("empty plugin source %q", arg)
	}
	if err := gitfetch.CheckURL(arg); err != nil {
		return Source{}, fmt.Errorf("plugin source: %w", err)
	}
	loc, tags, err := splitRelease(loc)
	if err != nil {
		return Source{}, fmt.Errorf("plugin source %s: %w", arg, err)
	}
	if tags != "" && ref != "" {
		return Source{}, fmt.Errorf("plugin source %s follows the releases %s and --ref says %s: give one", arg, tags, ref)
	}
	sel, dir, err := parseFragment(arg, frag)
	if err != nil {
		return Source{}, err
	}
	var src Source
	web, isWeb, err := parseWebSource(loc)
	if err != nil {
		return Source{}, err
	}
	switch {
	case isWeb:
		src = web
		if ref != "" {
			return Source{}, fmt.Errorf("plugin source %s is a %s source, not a git repository: --ref needs a git repository", loc, web.Kind)
		}
	case schemeRE().MatchString(loc) || scpRE().MatchString(loc):
		if loc, err = gitfetch.CanonicalURL(dropGitHubQuery(loc)); err != nil {
			return Source{}, fmt.Errorf("plugin source: %w", err)
		}
		web, ok, err := parseGitHubWeb(ctx, loc)
		switch {
		case err != nil:
			return Source{}, err
		case !ok:
			src = Source{Kind: SourceGit, URL: loc, Ref: ref}
		case web.Ref != "" && ref != "" && web.Ref != ref:
			return Source{}, fmt.Errorf("plugin source %s names the ref %s and --ref says %s: give one", loc, web.Ref, ref)
		default:
			src = web
			if ref != "" {
				src.Ref = ref
			}
		}
	default:
		src, err = parseLocalSource(loc, ref)
		if err != nil && errors.Is(err, fs.ErrNotExist) && IsGitHubShorthand(loc) {
			src = Source{Kind: SourceGit, URL: GitHubURL(loc), Ref: ref}
			if _, lerr := gitfetch.RefNames(ctx, src.URL, gitfetch.Options{}); lerr != nil {
				return Source{}, &ShorthandError{Arg: loc, URL: src.URL, Err: lerr}
			}
		} else if err != nil {
			return Source{}, err
		}
	}
	if src.Kind == SourceGit {
		// The form the policy checks and sync fetches (a GitHub
		// address built from a shorthand or a web URL included).
		if src.URL, err = gitfetch.CanonicalURL(src.URL); err != nil {
			return Source{}, fmt.Errorf("plugin source: %w", err)
		}
	}
	if tags != "" {
		if src.Kind != SourceGit && src.Kind != SourceNPM {
			return Source{}, fmt.Errorf("plugin source %s is a %s source: following releases (@%s) needs a git repository or an npm package", loc, src.Kind, tags)
		}
		if src.Ref != "" {
			return Source{}, fmt.Errorf("plugin source %s names the ref %s and follows the releases %s: give one", arg, src.Ref, tags)
		}
		src.Tags = tags
	}
	src.Selector = sel
	if dir != "" {
		if src.Path != "" {
			return Source{}, fmt.Errorf("plugin source %s names two folders, %s and %s: give one", arg, src.Path, dir)
		}
		return src.WithPath(dir)
	}
	return src, nil
}

// splitRelease cuts a version range written after the source's last '@'
// (owner/repo@^1.2, https://host/repo.git@1.x): what follows must read
// as a range and start as one does (a digit, "v" and a digit, one of
// ^ ~ < > = *, or "x"), so git@host:path and a user@ in a URL stay
// whole. The range is returned as written, checked.
func splitRelease(loc string) (string, string, error) {
	i := strings.LastIndex(loc, "@")
	if i <= 0 {
		return loc, "", nil
	}
	rng := loc[i+1:]
	if !looksLikeRange(rng) {
		return loc, "", nil
	}
	if _, err := semver.ParseRange(rng); err != nil {
		return "", "", err
	}
	return loc[:i], rng, nil
}

// looksLikeRange reports whether s starts as a version range does.
func looksLikeRange(s string) bool {
	switch {
	case s == "":
		return false
	case s == "x" || s == "X" || strings.HasPrefix(s, "x.") || strings.HasPrefix(s, "x "):
		return true
	case strings.ContainsAny(s[:1], "^~<>=*0123456789"):
		return !strings.ContainsAny(s, "/:")
	case s[0] == 'v' && len(s) > 1 && s[1] >= '0' && s[1] <= '9':
		return !strings.ContainsAny(s, "/:")
	}
	return false
}

// dropGitHubQuery drops the query of a github.com page's address
// (?tab=readme-ov-file, which the browser adds): the page names the same
// repository. Any other URL is kept as it is (a git URL has no query).
func dropGitHubQuery(loc string) string {
	u, err := url.Parse(loc)
	if err != nil || u.RawQuery == "" || (u.Scheme != "https" && u.Scheme != "http") || (u.Host != "github.com" && u.Host != "www.github.com") {
		return loc
	}
	u.RawQuery, u.ForceQuery = "", false
	return u.String()
}

// parseFragment splits what follows '#' into a plugin name and a folder
// (the part holding a '/').
func parseFragment(arg, frag string) (sel, dir string, err error) {
	if frag == "" {
		return "", "", nil
	}
	parts := strings.Split(frag, "#")
	if len(parts) > 2 {
		return "", "", fmt.Errorf("plugin source %q: after '#' give a plugin, a folder (with a '/'), or folder#plugin", arg)
	}
	for _, p := range parts {
		switch {
		case p == "":
			return "", "", fmt.Errorf("plugin source %q: an empty part after '#'", arg)
		case strings.Contains(p, "/") && dir == "":
			dir = p
		case !strings.Contains(p, "/") && sel == "":
			sel = p
		default:
			return "", "", fmt.Errorf("plugin source %q: after '#' give one plugin and at most one folder (a folder holds a '/')", arg)
		}
	}
	return sel, dir, nil
}

// parseLocalSource reads a local path: a git repository's top or a folder.
// A missing path is an error wrapping fs.ErrNotExist.
func parseLocalSource(loc, ref string) (Source, error) {
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
	src := Source{URL: abs, Ref: ref, Kind: SourceFolder}
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
