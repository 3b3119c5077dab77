package plugins

import (
	"fmt"

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
