package discover

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestAgentIssues(t *testing.T) {
	load := func(content string) *Skill {
		t.Helper()
		s, diags := newSkill("/r/x", "/r/x/SKILL.md", []byte(content), Lenient)
		if s == nil {
			t.Fatalf("does not parse: %v", diags)
		}
		return s
	}
	render := func(issues []AgentIssue) []string {
		var out []string
		for _, is := range issues {
			out = append(out, is.Agent+" "+map[bool]string{true: "blocks", false: "notes"}[is.Blocking]+": "+is.Message)
		}
		return out
	}
	tests := []struct {
		name  string
		skill *Skill
		want  []string
	}{
		{"clean", load("---\nname: x\ndescription: d\n---\nbody\n"), nil},
		{"bom", load("\ufeff---\nname: x\ndescription: d\n---\nbody\n"), []string{
			"codex blocks: the file starts with a byte order mark, so Codex finds no '---' line; save it as UTF-8 without BOM"}},
		{"no name or description", load("---\nlicense: MIT\n---\nbody\n"), []string{
			"codex blocks: Codex requires a name in the frontmatter",
			"codex blocks: Codex requires a description in the frontmatter",
			"claude-code notes: without a description Claude Code uses the body's first paragraph, so Claude may not know when to use the skill"}},
		{"long texts", load("---\nname: x\ndescription: " + strings.Repeat("d", 1000) + "\nwhen_to_use: " + strings.Repeat("w", 600) +
			"\nmetadata:\n  short-description: " + strings.Repeat("s", 501) + "\n---\nbody\n"), []string{
			"codex blocks: Codex refuses a metadata.short-description over 500 characters",
			"claude-code notes: Claude Code truncates description plus when_to_use to 1536 characters in its skill listing; put the key use cases first"}},
		{"broken", &Skill{Diagnostics: []Diagnostic{errorAt("f", 1, "missing YAML frontmatter")}}, []string{
			"claude-code blocks: missing YAML frontmatter", "codex blocks: missing YAML frontmatter"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render(AgentIssues(tt.skill)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}

	hidden := load("---\nname: x\ndescription: d\n---\nbody\n")
	hidden.RelDir, hidden.Root, hidden.Symlinked = ".curated/x", "/home/u/.agents/skills", true
	if got := len(AgentIssues(hidden)); got != 2 {
		t.Errorf("hidden symlinked skill: %d issues, want 2: %v", got, AgentIssues(hidden))
	}
	hidden.RelDir, hidden.Root, hidden.Symlinked = ".system/x", "/home/u/.codex/skills", false
	if got := AgentIssues(hidden); len(got) != 0 {
		t.Errorf("Codex's own .system folder flagged: %v", got)
	}
}

func TestUnreadableFolderIsADiagnostic(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	root := t.TempDir()
	tree(t, root, map[string]string{"locked/inner/SKILL.md": skillMD("inner", "d", "b"), "ok/SKILL.md": skillMD("ok", "d", "b")})
	locked := filepath.Join(root, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	res, err := DiscoverRoots(t.Context(), []Root{{Path: root, Layer: LayerCLI, Label: "r"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(res); !reflect.DeepEqual(got, []string{"ok cli ok"}) {
		t.Errorf("skills: %v", got)
	}
	if got := diagSummary(res.Diagnostics, root); !reflect.DeepEqual(got, []string{"$ROOT/locked: warning: cannot read directory: permission denied; its skills are not loaded"}) {
		t.Errorf("diagnostics: %v", got)
	}
}
