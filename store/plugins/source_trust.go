package plugins

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/skillstore/skillstore/internal/gitfetch"
)

// One rule for every source that comes from a file others can write (a
// marketplace entry, a cloned project's lock file, a plugin record pulled
// from a remote): a source on this
// machine (a folder, a repository at a path or a file:// URL) is refused
// unless the user named it on the command line (--allow-local). Else a
// marketplace entry {"source": "url", "url": "file:///home/me/private"}
// would copy a private repository into the store, and from there to a
// team's remote. Records the user's own tools wrote in the user's home
// (~/.agents/.skill-lock.json, Claude Code's ~/.claude/plugins) are the
// user's word and are not checked.

// ErrLocalSource is wrapped when a file others can write names a source on
// this machine that the user did not name.
var ErrLocalSource = errors.New("names a source on this machine, which the user did not name")

// IsLocal reports whether src reads this machine's files: a folder, or a
// git repository at a path or a file:// URL.
func (src Source) IsLocal() bool {
	if src.Kind == SourceFolder {
		return true
	}
	ep, err := transport.NewEndpoint(src.URL)
	return err != nil || ep.Protocol == "file"
}

// CheckNamedSource applies the rule to src, named by a file others can
// write: nil unless src is local and no entry of allowed (the sources the
// user named with --allow-local: a path or file:// URL, the same one or a
// folder holding it) covers it. Both are compared by the paths they
// really lead to, every symbolic link resolved: a link inside an allowed
// folder to a repository outside it is not covered.
func CheckNamedSource(src Source, allowed []string) error {
	if !src.IsLocal() {
		return nil
	}
	p := realPath(localPath(src.URL))
	for _, a := range allowed {
		if isBelow(p, realPath(localPath(a))) {
			return nil
		}
	}
	leads := ""
	if named := localPath(src.URL); named != p {
		leads = " (it leads to " + p + ")"
	}
	return fmt.Errorf("%s %w%s: take it only if you trust it, with --allow-local %s", src.URL, ErrLocalSource, leads, p)
}

// isBelow reports whether the clean absolute path p is dir or inside it.
func isBelow(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// localPath is the clean absolute path a local URL or path names (its
// canonical form: gitfetch.CanonicalURL).
func localPath(u string) string {
	if canon, err := gitfetch.CanonicalURL(u); err == nil {
		u = canon
	}
	if ep, err := transport.NewEndpoint(u); err == nil && ep.Protocol == "file" {
		u = ep.Path
	}
	abs, err := filepath.Abs(u)
	if err != nil {
		return filepath.Clean(u)
	}
	return abs
}

// realPath is the clean absolute path p with every symbolic link
// resolved: the path a fetch of p really reads. A part that does not
// exist (yet) is kept as written below the deepest part that does.
func realPath(p string) string { return resolvePath(p, 0) }

func resolvePath(p string, depth int) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p || depth > 64 {
		return p
	}
	dir := resolvePath(parent, depth+1)
	full := filepath.Join(dir, filepath.Base(p))
	if to, err := os.Readlink(full); err == nil { // a link to what does not exist yet
		if !filepath.IsAbs(to) {
			to = filepath.Join(dir, to)
		}
		return resolvePath(filepath.Clean(to), depth+1)
	}
	return full
}
