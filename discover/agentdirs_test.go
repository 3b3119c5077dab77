package discover

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The one table gives discovery its folders: for a home, Claude Code's,
// then the .agents folder Codex and the other agents share, then Codex's
// older folder and each other agent's own; for a project the same shape.
// A folder several agents read is listed once, in the first one's view.
func TestAgentDirs(t *testing.T) {
	var user, project []string
	for _, d := range AgentDirs(false) {
		user = append(user, d.Path+" "+d.View)
	}
	for _, d := range AgentDirs(true) {
		project = append(project, d.Path+" "+d.View)
	}
	if want := []string{".claude/skills claude-code", ".agents/skills codex", ".codex/skills codex", ".cursor/skills cursor",
		".copilot/skills copilot", ".gemini/skills gemini", ".config/opencode/skills opencode"}; !reflect.DeepEqual(user, want) {
		t.Errorf("user folders %q, want %q", user, want)
	}
	if want := []string{".claude/skills claude-code", ".agents/skills codex", ".codex/skills codex", ".cursor/skills cursor",
		".github/skills copilot", ".gemini/skills gemini", ".opencode/skills opencode"}; !reflect.DeepEqual(project, want) {
		t.Errorf("project folders %q, want %q", project, want)
	}
	if a, ok := FindAgent("codex"); !ok || a.UserDirs[0] != ".agents/skills" || a.Budget.Agent != "Codex" || a.AdminDirs[0] != "/etc/codex/skills" {
		t.Errorf("FindAgent(codex) = %+v, %v", a, ok)
	}
	if _, ok := FindAgent("vim"); ok {
		t.Error("an agent skillstore does not know was found")
	}
	var readers []string
	for _, a := range AgentsReading(".claude/skills", false) {
		readers = append(readers, a.Name)
	}
	if want := []string{"claude", "cursor", "copilot", "opencode"}; !reflect.DeepEqual(readers, want) {
		t.Errorf("~/.claude/skills is read by %v, want %v", readers, want)
	}
	for _, a := range Agents() {
		if a.Docs == "" || len(a.UserDirs) == 0 || len(a.ProjectDirs) == 0 || !a.Generic && len(a.Markers) == 0 {
			t.Errorf("agent %s lacks a folder, a marker or its docs: %+v", a.Name, a)
		}
	}
}

// installed_plugins.json has one reader, with one rule for discovery and
// adopt: versions 1 and 2 are read; a file of another version is not used
// at all, and an entry that is not plugin@marketplace or not an install is
// named and left out, the others read.
func TestReadClaudeInstallsRules(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "installed_plugins.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, err := ReadClaudeInstalls(write(`{"version": 9, "plugins": {"a@m": []}}`))
	var ve *RecordVersionError
	if !errors.As(err, &ve) || ve.Version != 9 || !strings.Contains(err.Error(), "(1 or 2)") {
		t.Errorf("version 9: %v", err)
	}
	_, err = ReadClaudeInstalls(write("{\n  \"version\": 2,\n  oops\n}"))
	var je *JSONError
	if !errors.As(err, &je) || je.Line != 3 {
		t.Errorf("not JSON: %v (%+v)", err, je)
	}
	got, err := ReadClaudeInstalls(write(`{"version": 2, "plugins": {
		"good@m": [{"installPath": "/i/good"}],
		"nomarket": [{"installPath": "/i/x"}],
		"broken@m": 42}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Installs) != 1 || got.Installs[0].Plugin != "good" || got.Installs[0].Marketplace != "m" || got.Installs[0].Scope != "user" {
		t.Errorf("installs %+v", got.Installs)
	}
	if len(got.Problems) != 2 || got.Problems[0].Key != "broken@m" || got.Problems[0].Err == nil ||
		got.Problems[1].Key != "nomarket" || got.Problems[1].Err != nil {
		t.Errorf("problems %v", got.Problems)
	}
	if missing, err := ReadClaudeInstalls(filepath.Join(dir, "absent.json")); err != nil || len(missing.Installs) != 0 {
		t.Errorf("an absent file: %+v, %v", missing, err)
	}
}

// Discovery names a plugin list of an unknown version and lists none of
// its plugins' skills: what such a file holds may mean something else.
func TestDiscoverRefusesUnknownPluginListVersion(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	tree(t, base, map[string]string{
		"home/" + ClaudePluginsFile:          `{"version": 3, "plugins": {"p@m": [{"installPath": "` + filepath.ToSlash(filepath.Join(base, "p")) + `"}]}}`,
		"p/skills/tidy/SKILL.md":             skillMD("tidy", "Tidy.", "p"),
		"home/.claude/skills/notes/SKILL.md": skillMD("notes", "Notes.", "user"),
	})
	res, err := Discover(context.Background(), Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(res); !reflect.DeepEqual(got, []string{"notes user notes"}) {
		t.Errorf("skills %v", got)
	}
	d := res.AllDiagnostics()
	if len(d) != 1 || !strings.Contains(d[0].Message, "version 3 is not one skillstore reads (1 or 2); plugin skills are not listed") {
		t.Errorf("diagnostics %v", d)
	}
}
