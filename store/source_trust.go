package store

import "github.com/go-git/go-git/v5/plumbing/transport"

// Local and file:// sources name this machine's disk: a folder, or a git
// repository in one. Only a person at this machine may point skillstore
// at its own files, by naming them on the command line (plugin add,
// plugin set). A source that comes from a file others can write (a
// record pulled from a remote, a marketplace entry, another installer's
// lock file) and names a local path is refused: it would make this
// machine read, store and then push its own folders.

// IsLocal reports whether the source is on this machine's disk: a folder
// source, or a git source whose URL is a path or a file:// URL.
func (s Source) IsLocal() bool {
	return s.Kind == SourceFolder || IsLocalURL(s.URL)
}

// IsLocalURL reports whether fetching the git URL reads this machine's
// disk (a path or a file:// URL), the way the fetch itself tells: by the
// protocol of its endpoint. A URL that does not parse counts as local.
func IsLocalURL(url string) bool {
	ep, err := transport.NewEndpoint(url)
	return err != nil || ep.Protocol == "file"
}
