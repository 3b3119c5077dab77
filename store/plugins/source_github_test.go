package plugins

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/store/internal/storetest"
)

func TestGitHubURL(t *testing.T) {
	t.Setenv(GitHubURLEnv, "")
	if got := GitHubURL("anthropics/skills"); got != "https://github.com/anthropics/skills.git" {
		t.Errorf("GitHubURL = %q", got)
	}
	if got := GitHubURL("anthropics/skills.git"); got != "https://github.com/anthropics/skills.git" {
		t.Errorf("GitHubURL with .git = %q", got)
	}
	t.Setenv(GitHubURLEnv, "file:///tmp/mirror/")
	if got := GitHubURL("o/r"); got != "file:///tmp/mirror/o/r.git" {
		t.Errorf("GitHubURL under %s = %q", GitHubURLEnv, got)
	}
}

func TestIsGitHubShorthand(t *testing.T) {
	for arg, want := range map[string]bool{
		"anthropics/skills": true, "obra/superpowers.git": true, "a-b/c_d.e": true,
		"./o/r": false, "../r": false, "o/..": false, "o/r/x": false, "/o/r": false,
		"o": false, "-o/r": false, "o/r#x": false, "C:/x": false,
	} {
		if got := IsGitHubShorthand(arg); got != want {
			t.Errorf("IsGitHubShorthand(%q) = %v, want %v", arg, got, want)
		}
	}
}

func TestSplitRefPath(t *testing.T) {
	refs := []string{"main", "feature", "feature/x", "v1.0"}
	cases := []struct{ rest, ref, dir string }{
		{"main/skills/pdf", "main", "skills/pdf"},
		{"feature/x/plugins/tools", "feature/x", "plugins/tools"}, // the longest ref wins
		{"feature/y", "feature", "y"},
		{"feature/x", "feature/x", ""},
		{"v1.0/a", "v1.0", "a"},
	}
	for _, tc := range cases {
		ref, dir, ok := splitRefPath(strings.Split(tc.rest, "/"), refs)
		if !ok || ref != tc.ref || dir != tc.dir {
			t.Errorf("splitRefPath(%q) = %q, %q, %v; want %q, %q", tc.rest, ref, dir, ok, tc.ref, tc.dir)
		}
	}
	if _, _, ok := splitRefPath([]string{"nope", "x"}, refs); ok {
		t.Error("splitRefPath found a ref in nope/x")
	}
}

// TestParseSourceTyped covers the forms a user types, with GitHub served
// from a local bare repository through $SKILLSTORE_GITHUB_URL.
func TestParseSourceTyped(t *testing.T) {
	up, first, _ := storetest.UpstreamRepo(t)
	gh := t.TempDir()
	storetest.Git(t, gh, "clone", "-q", "--bare", up, filepath.Join(gh, "acme", "up.git"))
	storetest.Git(t, filepath.Join(gh, "acme", "up.git"), "branch", "feature/x", "main")
	t.Setenv(GitHubURLEnv, "file://"+gh)
	repoURL := "file://" + gh + "/acme/up.git"
	folder := t.TempDir()
	if err := os.MkdirAll(filepath.Join(folder, "sub", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		arg, ref           string
		kind               SourceKind
		url, wantRef, path string
		sel                string
		wantErr            string
	}{
		{arg: "acme/up", kind: SourceGit, url: repoURL},
		{arg: "acme/up#plugin", kind: SourceGit, url: repoURL, sel: "plugin"},
		{arg: "acme/up#plugins/x#p", kind: SourceGit, url: repoURL, path: "plugins/x", sel: "p"},
		{arg: "acme/up#tools/", kind: SourceGit, url: repoURL, path: "tools"},
		{arg: "https://github.com/acme/up", kind: SourceGit, url: repoURL},
		{arg: "https://www.github.com/acme/up.git#p", kind: SourceGit, url: repoURL, sel: "p"},
		{arg: "https://github.com/acme/up/tree/dev", kind: SourceGit, url: repoURL, wantRef: "dev"},
		{arg: "https://github.com/acme/up/tree/feature/x/skills/a", kind: SourceGit, url: repoURL, wantRef: "feature/x", path: "skills/a"},
		{arg: "https://github.com/acme/up/tree/" + first + "/skills", kind: SourceGit, url: repoURL, wantRef: first, path: "skills"},
		{arg: "https://github.com/acme/up/tree/main", ref: "main", kind: SourceGit, url: repoURL, wantRef: "main"},
		{arg: "https://gitlab.com/acme/up/tree/main", kind: SourceGit, url: "https://gitlab.com/acme/up/tree/main"},
		{arg: folder + "#sub/dir", kind: SourceFolder, url: filepath.Join(folder, "sub", "dir")},
		{arg: "https://github.com/acme/up/tree/main", ref: "dev", wantErr: "names the ref main and --ref says dev"},
		{arg: "https://github.com/acme/up/tree/main/skills#other/", wantErr: "names two folders, skills and other"},
		{arg: "https://github.com/acme/up/tree/nope/a", wantErr: `no branch or tag of ` + repoURL + ` starts "nope/a"`},
		{arg: "https://github.com/acme/up/blob/main/x", wantErr: `not a repository or a /tree/REF/PATH address`},
		{arg: "acme/missing", wantErr: "no local folder by that name, and read as GitHub shorthand for file://" + gh + "/acme/missing.git"},
		{arg: "acme/up#a#b", wantErr: "give one plugin and at most one folder"},
		{arg: "acme/up#", kind: SourceGit, url: repoURL},
		{arg: "acme/up#x#", wantErr: "an empty part after '#'"},
	}
	for _, tc := range cases {
		src, err := ParseSourceContext(context.Background(), tc.arg, tc.ref)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseSource(%q) error = %v, want %q", tc.arg, err, tc.wantErr)
			}
			continue
		}
		want := Source{Kind: tc.kind, URL: tc.url, Ref: tc.wantRef, Path: tc.path, Selector: tc.sel}
		if want.Ref == "" {
			want.Ref = tc.ref
		}
		if err != nil || src != want {
			t.Errorf("ParseSource(%q) = %+v, %v; want %+v", tc.arg, src, err, want)
		}
	}
	var se *ShorthandError
	if _, err := ParseSource("acme/missing", ""); !errors.As(err, &se) || !errors.Is(err, ErrShorthand) || se.Arg != "acme/missing" {
		t.Errorf("shorthand error = %#v", err)
	}
}

// TestParseSourceLocalWins checks that a folder named like owner/repo is
// read as that folder, never as GitHub.
func TestParseSourceLocalWins(t *testing.T) {
	t.Setenv(GitHubURLEnv, "file:///nonexistent")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "acme", "up"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	src, err := ParseSource("acme/up", "")
	if err != nil || src.Kind != SourceFolder || src.URL != filepath.Join(dir, "acme", "up") {
		t.Errorf("ParseSource(acme/up) with a local folder = %+v, %v", src, err)
	}
}

func TestRootSkillName(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := Source{Kind: SourceGit, URL: "https://github.com/acme/PDF-Tools.git"}
	cases := []struct{ body, want string }{
		{"---\nname: pdf\ndescription: d\n---\nb\n", "pdf"},
		{"---\ndescription: no name\n---\nb\n", "pdf-tools"},
		{"---\nname: Not A Name\ndescription: d\n---\nb\n", "pdf-tools"},
		{"no frontmatter\n", "pdf-tools"},
	}
	for _, tc := range cases {
		write(tc.body)
		if got := rootSkillName(localPluginFS(t, dir), src); got != tc.want {
			t.Errorf("rootSkillName(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
	if got := rootSkillName(localPluginFS(t, t.TempDir()), src); got != "" {
		t.Errorf("rootSkillName without SKILL.md = %q", got)
	}
	if got := sourceBaseName(Source{URL: "git@host:team/repo.git", Path: "plugins/Deploy"}); got != "deploy" {
		t.Errorf("sourceBaseName with a path = %q", got)
	}
	if got := sourceBaseName(Source{URL: "git@host:repo.git"}); got != "repo" {
		t.Errorf("sourceBaseName of an scp address = %q", got)
	}
}

func localPluginFS(t *testing.T, dir string) pluginfmt.PluginFS {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root.FS().(pluginfmt.PluginFS)
}
