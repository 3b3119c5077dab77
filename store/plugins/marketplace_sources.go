package plugins

import (
	"fmt"
	"strings"

	"github.com/skillstore/skillstore/internal/semver"

	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/pluginfmt"
)

// EntrySource is the source of a marketplace entry that lives in
// another git repository: its URL, the commit it pins (else its ref) and
// the folder of a git-subdir entry. A URL on this machine is refused
// unless allowed covers it (CheckNamedSource): the entry is the
// marketplace author's word, not the user's. A GitHub entry is not
// checked: its URL is GitHub's, or the one $SKILLSTORE_GITHUB_URL, which
// the user set, gives.
func EntrySource(r pluginfmt.RemotePlugin, allowed []string) (Source, error) {
	switch r.Kind {
	case pluginfmt.RemoteArchive:
		u, err := gitfetch.CanonicalURL(r.URL)
		if err != nil {
			return Source{}, fmt.Errorf(`"url": %w`, err)
		}
		return Source{Kind: SourceArchive, URL: u, SHA256: r.SHA256}, nil
	case pluginfmt.RemoteNPM:
		return npmEntrySource(r)
	}
	src := Source{Kind: SourceGit, URL: r.URL, Ref: r.Pin()}
	if r.Repo != "" {
		src.URL = GitHubURL(r.Repo)
	}
	var err error
	if src.URL, err = gitfetch.CanonicalURL(src.URL); err != nil {
		return Source{}, err
	}
	if r.Repo == "" {
		if err := CheckNamedSource(src, allowed); err != nil {
			return Source{}, fmt.Errorf(`"url": %w`, err)
		}
	}
	if r.Path == "" {
		return src, nil
	}
	out, err := src.WithPath(r.Path)
	if err != nil {
		return Source{}, fmt.Errorf(`"path": %w`, err)
	}
	return out, nil
}

// MarketplaceName names a marketplace source the way plugin records keep
// it: the source without its "#plugin" selector or ref, so that adding the
// marketplace again (at another ref too) finds the plugins it added.
func MarketplaceName(src Source) string {
	src.Selector, src.Ref = "", ""
	return src.String()
}

// npmEntrySource is the source of a marketplace's npm entry: the package
// at its registry (the entry's, else the one npm:NAME uses), following
// the versions its "version" range allows.
func npmEntrySource(r pluginfmt.RemotePlugin) (Source, error) {
	src, ok, err := parseWebSource("npm:" + r.Package)
	if err != nil || !ok {
		return Source{}, fmt.Errorf(`"package": %w`, err)
	}
	if r.Registry != "" {
		src.URL = strings.TrimRight(r.Registry, "/") + "/" + r.Package
	}
	if r.Range != "" {
		if _, err := semver.ParseRange(r.Range); err != nil {
			return Source{}, fmt.Errorf(`"version": %w`, err)
		}
		src.Tags = r.Range
	}
	return src, nil
}
