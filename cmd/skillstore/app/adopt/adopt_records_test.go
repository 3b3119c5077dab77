package adopt

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skillstore/skillstore/discover"
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
