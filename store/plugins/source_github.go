package plugins

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/gitfetch"
)

// GitHubURLEnv names the environment variable that replaces
// https://github.com as the base of every GitHub address skillstore
// expands: the owner/repo shorthand, https://github.com/... URLs typed by a
// user, and marketplace entries with {"source": "github"}. Tests point it
// at local bare repositories (file:///tmp/x gives file:///tmp/x/owner/repo.git);
// a mirror or proxy of GitHub works the same way.
const GitHubURLEnv = "SKILLSTORE_GITHUB_URL"

// gitHubBase is the GitHub base every expansion uses.
const gitHubBase = "https://github.com"

// GitHubURL is the git URL of the GitHub repository ownerRepo ("owner/repo",
// with or without ".git"): https://github.com/owner/repo.git, or under
// $SKILLSTORE_GITHUB_URL when it is set.
func GitHubURL(ownerRepo string) string {
	base := gitHubBase
	if env := os.Getenv(GitHubURLEnv); env != "" {
		base = env
	}
	repo := strings.TrimSuffix(strings.Trim(ownerRepo, "/"), ".git")
	return strings.TrimRight(base, "/") + "/" + repo + ".git"
}

// Compiled on first use rather than at start-up, which every command pays.
var (
	// shorthandRE is GitHub's owner/repo: an owner of letters, digits and
	// '-', a repository name of letters, digits, '.', '_' and '-'.
	shorthandRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$`)
	})
	commitRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{7,40}$`) })
)

// IsGitHubShorthand reports whether arg has the shape of GitHub's
// owner/repo shorthand. ParseSource takes it as shorthand only when no
// local path by that name exists.
func IsGitHubShorthand(arg string) bool {
	_, repo, _ := strings.Cut(arg, "/")
	return shorthandRE().MatchString(arg) && repo != "." && repo != ".."
}

// ErrShorthand is wrapped by the error of a source typed as GitHub
// shorthand whose repository could not be fetched.
var ErrShorthand = errors.New("read as GitHub shorthand")

// ShorthandError says what an owner/repo source was taken for and what
// fetching it gave, since the user may have meant a local folder.
type ShorthandError struct {
	Arg string // as typed
	URL string // what was fetched
	Err error
}

func (e *ShorthandError) Error() string {
	return fmt.Sprintf("plugin source %s: no local folder by that name, and %s for %s it cannot be fetched: %v",
		e.Arg, ErrShorthand, e.URL, e.Err)
}

func (e *ShorthandError) Unwrap() []error { return []error{ErrShorthand, e.Err} }

// parseGitHubWeb reads a github.com address as a browser shows it:
// https://github.com/OWNER/REPO[.git] or .../OWNER/REPO/tree/REF[/PATH].
// ok is false for a URL of another host. REF may hold '/' (a branch such
// as feature/x): when the rest of the path has several parts, the
// remote's branches and tags are listed and the longest one that starts
// it is the ref; the remainder is the path. A 7-40 digit hex first part
// is a commit and is taken without asking.
func parseGitHubWeb(ctx context.Context, raw string) (src Source, ok bool, err error) {
	u, perr := url.Parse(raw)
	if perr != nil || (u.Scheme != "https" && u.Scheme != "http") || (u.Host != "github.com" && u.Host != "www.github.com") {
		return Source{}, false, nil
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return Source{}, true, fmt.Errorf("plugin source %s: a GitHub address names a repository: https://github.com/OWNER/REPO[/tree/REF[/PATH]]", raw)
	}
	src = Source{Kind: SourceGit, URL: GitHubURL(parts[0] + "/" + parts[1])}
	rest := parts[2:]
	if len(rest) == 0 {
		return src, true, nil
	}
	if rest[0] != "tree" {
		return Source{}, true, fmt.Errorf("plugin source %s: not a repository or a /tree/REF/PATH address (%q after the repository)", raw, rest[0])
	}
	rest = rest[1:]
	if len(rest) == 0 || rest[0] == "" {
		return Source{}, true, fmt.Errorf("plugin source %s: the /tree/ address names no ref: https://github.com/OWNER/REPO/tree/REF[/PATH]", raw)
	}
	if len(rest) == 1 || commitRE().MatchString(rest[0]) {
		src.Ref, src.Path = rest[0], strings.Join(rest[1:], "/")
		return src, true, nil
	}
	names, err := gitfetch.RefNames(ctx, src.URL, gitfetch.Options{})
	if err != nil {
		return Source{}, true, fmt.Errorf("plugin source %s: %w", raw, err)
	}
	ref, dir, found := splitRefPath(rest, names)
	if !found {
		sort.Strings(names)
		return Source{}, true, fmt.Errorf("plugin source %s: no branch or tag of %s starts %q (it has: %s)", raw, src.URL, strings.Join(rest, "/"), strings.Join(names, ", "))
	}
	src.Ref, src.Path = ref, dir
	return src, true, nil
}

// splitRefPath splits the parts after /tree/ into a ref and a path: the
// longest leading run of parts that names one of refs.
func splitRefPath(parts, refs []string) (ref, dir string, ok bool) {
	known := map[string]bool{}
	for _, r := range refs {
		known[r] = true
	}
	for n := len(parts); n > 0; n-- {
		if cand := strings.Join(parts[:n], "/"); known[cand] {
			return cand, strings.Join(parts[n:], "/"), true
		}
	}
	return "", "", false
}
