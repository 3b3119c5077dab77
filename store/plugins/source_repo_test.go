package plugins

import (
	"strings"
	"testing"
)

// TestSameRepository: the spellings of one repository compare equal, and
// neither a plugin selector, a folder inside nor a ref makes another
// repository; other owners, names, hosts and local paths do.
func TestSameRepository(t *testing.T) {
	t.Setenv(GitHubURLEnv, "")
	git := func(url string) Source { return Source{Kind: SourceGit, URL: url} }
	lock := git(GitHubURL("anthropics/skills"))
	same := []Source{
		git("https://github.com/anthropics/skills"),
		git("https://github.com/anthropics/skills/"),
		git("https://github.com/Anthropics/Skills.git"),
		git("git@github.com:anthropics/skills.git"),
		git("ssh://git@github.com/anthropics/skills"),
		{Kind: SourceGit, URL: GitHubURL("anthropics/skills"), Selector: "document-skills"},
		{Kind: SourceGit, URL: GitHubURL("anthropics/skills"), Ref: "main", Path: "skills"},
	}
	for _, s := range same {
		if !SameRepository(lock, s) || !SameRepository(s, lock) {
			t.Errorf("%+v is not the repository of %s", s, lock.URL)
		}
	}
	other := []Source{
		git("https://github.com/anthropics/skills-extra"),
		git("https://github.com/other/skills"),
		git("https://gitlab.com/anthropics/skills"),
		git("https://github.com.evil.example/anthropics/skills"),
		git("/tmp/anthropics/skills"),
		{Kind: SourceFolder, URL: "/tmp/anthropics/skills"},
	}
	for _, s := range other {
		if SameRepository(lock, s) {
			t.Errorf("%+v is taken for the repository of %s", s, lock.URL)
		}
	}
	if !SameRepository(git("https://gitlab.com/Group/Sub/repo.git"), git("ssh://git@GitLab.com/Group/Sub/repo")) {
		t.Error("one GitLab repository over https and ssh differs")
	}
	if !SameRepository(git("/srv/repos/x/"), git("file:///srv/repos/x")) {
		t.Error("a local repository as a path and as a file:// URL differs")
	}
}

// TestSameRepositoryGitHubMirror: under $SKILLSTORE_GITHUB_URL the
// shorthand's URL and one typed with that base are GitHub's repository.
func TestSameRepositoryGitHubMirror(t *testing.T) {
	t.Setenv(GitHubURLEnv, "file:///tmp/mirror")
	a := Source{Kind: SourceGit, URL: GitHubURL("acme/skills")}
	b := Source{Kind: SourceGit, URL: "file:///tmp/mirror/Acme/skills/", Selector: "documents"}
	if !SameRepository(a, b) {
		t.Errorf("%s and %s differ", a.URL, b.URL)
	}
}

// TestDerivedPluginID: a repository that names no plugin is OWNER-REPO,
// or REPO when it starts with its owner; a local one keeps its folder's
// name; a folder picked inside does not count.
func TestDerivedPluginID(t *testing.T) {
	t.Setenv(GitHubURLEnv, "")
	for _, c := range []struct {
		src  Source
		want string
	}{
		{Source{Kind: SourceGit, URL: GitHubURL("acme/skills")}, "acme-skills"},
		{Source{Kind: SourceGit, URL: "https://github.com/someone/repo"}, "someone-repo"},
		{Source{Kind: SourceGit, URL: "git@github.com:obra/obra-skills.git"}, "obra-skills"},
		{Source{Kind: SourceGit, URL: "https://github.com/vercel/vercel"}, "vercel"},
		{Source{Kind: SourceGit, URL: "https://gitlab.com/Team_X/Tools.git"}, "team_x-tools"},
		{Source{Kind: SourceGit, URL: GitHubURL("acme/skills"), Path: "plugins/ops"}, "acme-skills"},
		{Source{Kind: SourceGit, URL: "/work/src/my-skills"}, "my-skills"},
		{Source{Kind: SourceGit, URL: "file:///work/src/kit.git"}, "kit"},
		{Source{Kind: SourceFolder, URL: "/home/me/Team Skills"}, "team skills"},
	} {
		if got := derivedPluginID(c.src); got != c.want {
			t.Errorf("derivedPluginID(%+v) = %q, want %q", c.src, got, c.want)
		}
	}
}

// TestIDSafe: what a plugin id may not hold becomes one '-', never at
// either end.
func TestIDSafe(t *testing.T) {
	for in, want := range map[string]string{
		"Acme Agent Skills": "acme-agent-skills",
		"--x__y..":          "x__y",
		"a@b:c/d":           "a-b-c-d",
		"日本":                "",
	} {
		if got := idSafe(in); got != want {
			t.Errorf("idSafe(%q) = %q, want %q", in, got, want)
		}
	}
	if strings.Contains(idSafe("a - - b"), "--") {
		t.Error("a run of separators is more than one '-'")
	}
}
