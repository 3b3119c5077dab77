package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Codex's admin folder (/etc/codex/skills) is reported and makes Codex an
// agent found, but no target is ever proposed there: the proposal is the
// user's own folder.
func TestDetectAdminFolder(t *testing.T) {
	base := t.TempDir()
	t.Setenv("PATH", filepath.Join(base, "empty-path"))
	home := filepath.Join(base, "home")
	if err := os.MkdirAll(filepath.Join(base, "etc", "codex", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	d := detect(detectEnv{home: home, adminRoot: base}, nil)
	if len(d.Agents) != 1 || d.Agents[0].Agent != "codex" || d.Agents[0].Scope != "admin" || d.Agents[0].FoundBy != "/etc/codex/skills" {
		t.Fatalf("agents %+v", d.Agents)
	}
	if len(d.Targets) != 1 || d.Targets[0].Dir != filepath.Join(home, ".agents", "skills") || d.Targets[0].Command != "skillstore target add codex" {
		t.Fatalf("targets %+v", d.Targets)
	}
	var out strings.Builder
	writeDetection(&out, d)
	if !strings.Contains(out.String(), "/etc/codex/skills (read by the agent; skillstore never writes there)") {
		t.Errorf("detect's report:\n%s", out.String())
	}
	// Without the folder nothing is found.
	if d := detect(detectEnv{home: home, adminRoot: filepath.Join(base, "none")}, nil); len(d.Agents) != 0 {
		t.Errorf("agents %+v", d.Agents)
	}
}
