package adopt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/store/plugins"
)

// Version 1 of installed_plugins.json keeps one object per plugin, version
// 2 a list per plugin (one install per scope): both read the same.
func TestReadClaudeInstallsBothVersions(t *testing.T) {
	dir := t.TempDir()
	v1 := `{"version": 1, "plugins": {"pdf@tools": {"installPath": "/h/.claude/plugins/cache/tools/pdf/1.0.0", "version": "1.0.0", "gitCommitSha": "abc"}}}`
	v2 := `{"version": 2, "plugins": {"pdf@tools": [
		{"scope": "project", "projectPath": "/p", "installPath": "/h/b", "version": "2.0.0"},
		{"scope": "user", "installPath": "/h/a", "version": "1.5.0", "gitCommitSha": "def"}]}}`
	for name, body := range map[string]string{"v1": v1, "v2": v2} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := readClaudeInstalls(filepath.Join(dir, "v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := discover.ClaudeInstall{Key: "pdf@tools", Plugin: "pdf", Marketplace: "tools", InstallPath: "/h/.claude/plugins/cache/tools/pdf/1.0.0", Version: "1.0.0", Commit: "abc", Scope: "user"}
	if len(got) != 1 || got[0] != want {
		t.Errorf("v1: got %+v, want [%+v]", got, want)
	}
	got, err = readClaudeInstalls(filepath.Join(dir, "v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Scope != "project" || got[0].ProjectPath != "/p" || got[1].Scope != "user" || got[1].Commit != "def" {
		t.Errorf("v2: got %+v", got)
	}
	if _, err := readClaudeInstalls(filepath.Join(dir, "absent.json")); err != nil {
		t.Errorf("an absent file is no error, got %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version": 2, "plugins": {"no-at-sign": []}}`), 0o644)
	if _, err := readClaudeInstalls(bad); err == nil {
		t.Error("a key without @marketplace was accepted")
	}
}

// TestLockSource: the source of each sourceType a lock file records, at
// its ref, with the global lock's pluginName picking the marketplace
// plugin; sources that are no git repositories are said to be so.
func TestLockSource(t *testing.T) {
	t.Setenv(plugins.GitHubURLEnv, "https://github.example")
	t.Setenv(GitLabURLEnv, "https://gitlab.example")
	ctx := context.Background()
	for _, tc := range []struct {
		l                lockSkill
		url, ref, plugin string
	}{
		{lockSkill{SourceType: "github", Source: "acme/skills", Ref: "v2", PluginName: "documents"}, "https://github.example/acme/skills.git", "v2", "documents"},
		{lockSkill{SourceType: "github", Source: "acme/skills"}, "https://github.example/acme/skills.git", "", ""},
		{lockSkill{SourceType: "gitlab", Source: "group/sub/tools", Ref: "stable"}, "https://gitlab.example/group/sub/tools.git", "stable", ""},
		{lockSkill{SourceType: "gitlab", Source: "https://git.example.com/a/b.git"}, "https://git.example.com/a/b.git", "", ""},
		{lockSkill{SourceType: "git", Source: "https://git.example.com/a/b.git", Ref: "main", PluginName: "Not A Name"}, "https://git.example.com/a/b.git", "main", ""},
	} {
		src, err := lockSource(ctx, tc.l)
		if err != nil {
			t.Errorf("%+v: %v", tc.l, err)
			continue
		}
		if src.URL != tc.url || src.Ref != tc.ref || src.Selector != tc.plugin {
			t.Errorf("%+v: got %s ref %q plugin %q, want %s ref %q plugin %q", tc.l, src.URL, src.Ref, src.Selector, tc.url, tc.ref, tc.plugin)
		}
	}
	for _, kind := range []string{"well-known", "node_modules"} {
		if _, err := lockSource(ctx, lockSkill{SourceType: kind, Source: "x"}); !errors.Is(err, errNotGit) {
			t.Errorf("%s: %v, want errNotGit", kind, err)
		}
	}
}
