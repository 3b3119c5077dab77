package store

import "github.com/go-git/go-git/v5/plumbing/transport"

// One rule for every source that comes from a file others can write (a
// plugin record pulled from a remote, a marketplace entry, a cloned
// project's lock file): a source on this machine (a folder, a repository
// at a path or a file:// URL) is refused unless the user named it on the
// command line. Else a teammate's record naming file:///home/me/private
// would copy a private repository into the store, and from there to the
// team's remote.

// IsLocal reports whether src reads this machine's files: a folder, or a
// git repository at a path or a file:// URL (as the fetch tells, by its
// endpoint's protocol; a URL that does not parse counts as local).
func (src Source) IsLocal() bool {
	if src.Kind == SourceFolder {
		return true
	}
	ep, err := transport.NewEndpoint(src.URL)
	return err != nil || ep.Protocol == "file"
}
