package plugins

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
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
// folder holding it) covers it.
func CheckNamedSource(src Source, allowed []string) error {
	if !src.IsLocal() {
		return nil
	}
	p := localPath(src.URL)
	for _, a := range allowed {
		if rel, err := filepath.Rel(localPath(a), p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil
		}
	}
	return fmt.Errorf("%s %w: take it only if you trust it, with --allow-local %s", src.URL, ErrLocalSource, p)
}

// localPath is the clean absolute path a local URL or path names.
func localPath(u string) string {
	if ep, err := transport.NewEndpoint(u); err == nil && ep.Protocol == "file" {
		u = ep.Path
	}
	abs, err := filepath.Abs(u)
	if err != nil {
		return filepath.Clean(u)
	}
	return abs
}
