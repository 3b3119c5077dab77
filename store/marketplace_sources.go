package store

import (
	"fmt"
	"os"
	"strings"

	"github.com/skillstore/skillstore/store/manifest"
)

// githubURLEnv rewrites the base of GitHub repository URLs (tests point it
// at local repositories; a mirror can be used the same way).
const githubURLEnv = "SKILLSTORE_GITHUB_URL"

// githubRepoURL is the git URL of the GitHub repository owner/name:
// https://github.com/<repo>.git, or $SKILLSTORE_GITHUB_URL/<repo>.git.
func githubRepoURL(repo string) string {
	base := "https://github.com"
	if env := strings.TrimRight(os.Getenv(githubURLEnv), "/"); env != "" {
		base = env
	}
	return base + "/" + repo + ".git"
}

// remoteEntrySource is the source of a marketplace entry that lives in
// another git repository: its URL, the commit it pins (else its ref) and
// the folder of a git-subdir entry.
func remoteEntrySource(r manifest.RemotePlugin) (Source, error) {
	src := Source{Kind: SourceGit, URL: r.URL, Ref: r.Pin()}
	if r.Repo != "" {
		src.URL = githubRepoURL(r.Repo)
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

// marketplaceName names a marketplace source the way plugin records keep
// it: the source without its "#plugin" selector or ref, so that adding the
// marketplace again (at another ref too) finds the plugins it added.
func marketplaceName(src Source) string {
	src.Selector, src.Ref = "", ""
	return src.String()
}
