package pluginfmt

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"
)

// The kinds of remote marketplace sources: git repositories, and the
// kinds of Claude Code's that are not (an archive, an npm package).
const (
	RemoteGitHub    = "github"     // "repo": owner/name on GitHub
	RemoteURL       = "url"        // "url": any git URL
	RemoteGitSubdir = "git-subdir" // "url" and "path": a folder of a git repository
	RemoteArchive   = "archive"    // "url" (https, a .zip or .tar.gz), "sha256"
	RemoteNPM       = "npm"        // "package", optional "version" (a range) and "registry"
)

// RemotePlugin is a marketplace entry whose plugin lives in another git
// repository. The caller fetches it (pinned at SHA when given, else at
// Ref, else the remote's HEAD) and reads it with [ReadEntryPlugin].
type RemotePlugin struct {
	Name    string
	Version string
	Kind    string // RemoteGitHub, RemoteURL or RemoteGitSubdir
	Repo    string // owner/name, for RemoteGitHub (and a git-subdir "url" given as owner/name)
	URL     string // the git URL, for RemoteURL and RemoteGitSubdir
	Path    string // the plugin's folder inside the repository, clean and relative ("" for its top)
	Ref     string // branch or tag, if any
	SHA     string // the commit to pin (40 hex, lower case), if any
	// SHA256 is an archive's digest (64 hex, lower case), if any;
	// Package, Range and Registry name an npm package, the versions it
	// may take ("" its latest) and the registry ("" the default).
	SHA256, Package, Range, Registry string
	Skills                           []string // the entry's "skills" paths; nil when it lists none
	File                             string   // the marketplace file listing it
	Line                             int      // the entry's line there (0 when unknown)
	// DefaultEnabled and Dependencies are the entry's (nil: it gives
	// none), which win over and add to the plugin's own manifest.
	DefaultEnabled *bool
	Dependencies   []Dependency
}

// Pin is what to fetch: the commit when the entry pins one, else its ref.
func (r RemotePlugin) Pin() string {
	if r.SHA != "" {
		return r.SHA
	}
	return r.Ref
}

// remoteSource is the object form of a marketplace entry's source.
type remoteSource struct {
	Source string `json:"source"`
	Repo   string `json:"repo"`
	URL    string `json:"url"`
	Path   string `json:"path"`
	Ref    string `json:"ref"`
	SHA    string `json:"sha"`
	// Archive and npm sources.
	SHA256   string `json:"sha256"`
	Package  string `json:"package"`
	Version  string `json:"version"`
	Registry string `json:"registry"`
}

// Compiled on first use rather than at start-up, which every command pays.
var (
	ownerRepoRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+$`) })
	shaRE       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-fA-F]{40}$`) })
	gitURLRE    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([a-z][a-z0-9+.-]*://|[^/@:]+@[^/:]+:)`)
	})
)

// plugin checks a remote source and returns the plugin it names; reason is
// set instead when the source is of a kind that is no git repository (a
// package registry), which is skipped rather than failed.
func (r remoteSource) plugin(e marketplaceEntry, skills []string, line int) (RemotePlugin, string, error) {
	p := RemotePlugin{Name: e.Name, Version: e.Version, Kind: r.Source, Ref: r.Ref, Skills: skills, Line: line}
	if r.SHA != "" {
		if !shaRE().MatchString(r.SHA) {
			return p, "", fmt.Errorf(`"sha" %q is not a full commit id (40 hexadecimal digits)`, r.SHA)
		}
		p.SHA = strings.ToLower(r.SHA)
	}
	switch r.Source {
	case RemoteGitHub:
		if !ownerRepoRE().MatchString(r.Repo) {
			return p, "", fmt.Errorf(`"repo" %q must be owner/name`, r.Repo)
		}
		p.Repo = r.Repo
	case RemoteURL, RemoteGitSubdir:
		switch {
		case r.URL == "":
			return p, "", fmt.Errorf(`a %q source needs "url"`, r.Source)
		case gitURLRE().MatchString(r.URL):
			p.URL = r.URL
		case ownerRepoRE().MatchString(r.URL):
			p.Repo = r.URL // GitHub shorthand
		default:
			return p, "", fmt.Errorf(`"url" %q is not a git URL (scheme://host/path or user@host:path)`, r.URL)
		}
		if r.Source == RemoteGitSubdir {
			if r.Path == "" {
				return p, "", errors.New(`a "git-subdir" source needs "path"`)
			}
			dir, err := cleanRepoPath(r.Path)
			if err != nil {
				return p, "", fmt.Errorf(`"path": %w`, err)
			}
			p.Path = dir
		}
	case RemoteArchive:
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return p, "", fmt.Errorf(`an "archive" source needs an http(s) "url", not %q`, r.URL)
		}
		if r.SHA256 != "" {
			if len(r.SHA256) != 64 || strings.Trim(strings.ToLower(r.SHA256), "0123456789abcdef") != "" {
				return p, "", fmt.Errorf(`"sha256" %q is not 64 hexadecimal digits`, r.SHA256)
			}
			p.SHA256 = strings.ToLower(r.SHA256)
		}
		p.URL = r.URL
	case RemoteNPM:
		if r.Package == "" {
			return p, "", errors.New(`an "npm" source needs "package"`)
		}
		if r.Registry != "" {
			if u, err := url.Parse(r.Registry); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
				return p, "", fmt.Errorf(`"registry" %q is not an http(s) URL without credentials, query or fragment`, r.Registry)
			}
		}
		p.Package, p.Range, p.Registry = r.Package, r.Version, r.Registry
	case "":
		return p, "", errors.New(`the "source" object has no "source" kind (github, url, git-subdir, archive or npm)`)
	default:
		return p, fmt.Sprintf("its source is %q, which skillstore does not fetch (github, url, git-subdir, archive, npm)", r.Source), nil
	}
	return p, "", nil
}

// cleanRepoPath checks a folder inside a repository: relative and inside it.
func cleanRepoPath(dir string) (string, error) {
	d := strings.ReplaceAll(dir, `\`, "/")
	if strings.HasPrefix(d, "/") || (len(d) > 1 && d[1] == ':') {
		return "", fmt.Errorf("%q: %w (absolute paths are not allowed)", dir, ErrPathEscapes)
	}
	clean := path.Clean(d)
	if escapes(clean) {
		return "", fmt.Errorf("%q: %w", dir, ErrPathEscapes)
	}
	if clean == "." {
		return "", nil
	}
	return clean, nil
}

// ReadEntryPlugin reads the plugin a remote marketplace entry names, from
// the entry's folder of its repository (fsys). skills, when not nil, is the
// entry's "skills" list, which wins over the plugin's own manifest. Without
// it the folder is read as any source is; when that folder is itself a
// marketplace, its plugin named name is taken. A plugin without skills
// gives a layout with none, or an error wrapping [ErrNoSkills].
func ReadEntryPlugin(fsys PluginFS, name string, skills []string) (*PluginLayout, error) {
	if skills != nil {
		p, err := readPlugin(fsys, ".", skills, "", MarketplaceManifest, "")
		if err != nil {
			return nil, err
		}
		p.Manifest = MarketplaceManifest // the list came from the entry
		return p, nil
	}
	selector := ""
	for _, f := range MarketplaceFiles() {
		if ok, err := exists(fsys, f); err != nil {
			return nil, err
		} else if ok {
			selector = name
		}
	}
	layout, err := ReadLayout(fsys, selector)
	if err != nil {
		return nil, err
	}
	switch {
	case len(layout.Plugins) == 1:
		return &layout.Plugins[0], nil
	case len(layout.Remote) > 0:
		return nil, fmt.Errorf("the marketplace there lists plugin %q in yet another repository: add that marketplace itself", name)
	}
	return nil, fmt.Errorf("%d plugins found where one was expected", len(layout.Plugins))
}
