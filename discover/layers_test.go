package discover

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestIDsSurviveMovingARoot moves a --skill-dir root and an env root to
// other folders: the IDs of their skills stay, because they hang on the
// root's role (layer and position) and the folder below it.
func TestIDsSurviveMovingARoot(t *testing.T) {
	base := t.TempDir()
	tree(t, base, map[string]string{
		"a/deploy/SKILL.md":      skillMD("deploy", "Deploy.", "a"),
		"a/acme/lint/SKILL.md":   skillMD("lint", "Lint.", "a"),
		"team/notes/SKILL.md":    skillMD("notes", "Notes.", "team"),
		"second/deploy/SKILL.md": skillMD("deploy", "Another deploy.", "second"),
	})
	ids := func(opts Options) map[string]string {
		res, err := Discover(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, s := range res.Skills {
			m[s.Layer.String()+" "+s.Root[len(base):]+" "+s.QualifiedName()] = s.ID
		}
		return m
	}
	before := ids(Options{CLIDirs: []string{filepath.Join(base, "a"), filepath.Join(base, "second")}, EnvPath: filepath.Join(base, "team")})
	if err := os.Rename(filepath.Join(base, "a"), filepath.Join(base, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(base, "elsewhere"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(base, "team"), filepath.Join(base, "elsewhere", "team")); err != nil {
		t.Fatal(err)
	}
	after := ids(Options{CLIDirs: []string{filepath.Join(base, "moved"), filepath.Join(base, "second")}, EnvPath: filepath.Join(base, "elsewhere", "team")})
	pairs := map[string]string{
		"cli /a deploy":      "cli /moved deploy",
		"cli /a acme/lint":   "cli /moved acme/lint",
		"env /team notes":    "env /elsewhere/team notes",
		"cli /second deploy": "cli /second deploy",
	}
	for b, a := range pairs {
		if before[b] == "" || before[b] != after[a] {
			t.Errorf("%s: id %q before the move, %q after", b, before[b], after[a])
		}
	}
	if before["cli /a deploy"] == before["cli /second deploy"] {
		t.Error("two --skill-dir roots gave one ID to their deploy skills")
	}
}

func TestManifestLayer(t *testing.T) {
	base := t.TempDir()
	tree(t, base, map[string]string{
		"repo/.git/HEAD": "ref: refs/heads/main\n",
		"repo/.skillstore-skills": "# skills this project uses\n" +
			"tools/skills\n" +
			"\n" +
			"  vendor/one-skill  \n" +
			"/etc/skills\n" +
			"../outside\n" +
			"missing/folder\n",
		"repo/tools/skills/deploy/SKILL.md":   skillMD("deploy", "Deploy the project.", "manifest"),
		"repo/vendor/one-skill/SKILL.md":      skillMD("one-skill", "A single skill folder.", "one"),
		"repo/.claude/skills/deploy/SKILL.md": skillMD("deploy", "The agent folder's deploy.", "project"),
		"repo/sub/.skillstore-skills":         "../shared\n",
		"repo/shared/review/SKILL.md":         skillMD("review", "Review.", "shared"),
	})
	opts := Options{WorkDir: filepath.Join(base, "repo", "sub")}
	res, err := Discover(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"deploy manifest deploy",
		"deploy project deploy shadowed-by:manifest",
		"one-skill manifest .",
		"review manifest review",
	}
	if got := summary(res); !reflect.DeepEqual(got, want) {
		t.Errorf("skills:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var labels []string
	for _, r := range res.Roots {
		if r.Layer == LayerManifest {
			labels = append(labels, r.Label)
		}
	}
	if want := []string{"<project>/shared", "<project>/tools/skills", "<project>/vendor/one-skill", "<project>/missing/folder"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("manifest roots %v, want %v (nearest manifest first)", labels, want)
	}
	wantDiags := []string{
		"$ROOT/repo/.skillstore-skills:5: warning: \"/etc/skills\" is an absolute path; list folders relative to $ROOT/repo, ignored",
		"$ROOT/repo/.skillstore-skills:6: warning: \"../outside\" leaves the project $ROOT/repo; list folders inside it, ignored",
		"$ROOT/repo/.skillstore-skills:7: warning: listed folder $ROOT/repo/missing/folder cannot be searched: no such file or directory; fix or remove the line",
	}
	if got := diagSummary(res.AllDiagnostics(), base); !reflect.DeepEqual(got, wantDiags) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantDiags, "\n"))
	}
}

func TestConfigLayer(t *testing.T) {
	base := t.TempDir()
	tree(t, base, map[string]string{
		"config/skillstore/skills/notes/SKILL.md": skillMD("notes", "My notes.", "config"),
		"home/.claude/skills/notes/SKILL.md":      skillMD("notes", "Claude's notes.", "user"),
	})
	res, err := Discover(context.Background(), Options{ConfigDir: filepath.Join(base, "config"), Home: filepath.Join(base, "home")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"notes config notes", "notes user notes shadowed-by:config"}
	if got := summary(res); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if l := res.Roots[0].Label; l != "$XDG_CONFIG_HOME/skillstore/skills" {
		t.Errorf("config root label %q", l)
	}
}

// installedPlugins is installed_plugins.json in the shape Claude Code
// writes (version 2: a list of installs per plugin@marketplace), with an
// entry in the older one-object shape.
const installedPlugins = `{
  "version": 2,
  "plugins": {
    "superpowers@superpowers-marketplace": [
      {"scope": "user", "installPath": "$CACHE/superpowers-marketplace/superpowers/4.0.3", "version": "4.0.3",
       "installedAt": "2026-01-10T09:00:00.000Z", "lastUpdated": "2026-03-01T09:00:00.000Z", "gitCommitSha": "0123456789abcdef0123456789abcdef01234567"}
    ],
    "review@team": [
      {"scope": "project", "projectPath": "$BASE/work/app", "installPath": "$CACHE/team/review/1.0.0", "version": "1.0.0"},
      {"scope": "project", "projectPath": "$BASE/work/other", "installPath": "$CACHE/team/review-other/1.0.0", "version": "1.0.0"}
    ],
    "old@legacy": {"scope": "user", "installPath": "$CACHE/legacy/old/0.1.0", "version": "0.1.0"},
    "broken@x": 42
  }
}`

func TestPluginLayer(t *testing.T) {
	base := t.TempDir()
	cache := filepath.Join(base, "home", ".claude", "plugins", "cache")
	json := strings.NewReplacer("$CACHE", cache, "$BASE", base).Replace(installedPlugins)
	tree(t, base, map[string]string{
		"home/.claude/plugins/installed_plugins.json":                                                        json,
		"home/.claude/plugins/cache/superpowers-marketplace/superpowers/4.0.3/skills/brainstorming/SKILL.md": skillMD("brainstorming", "Brainstorm.", "sp"),
		"home/.claude/plugins/cache/superpowers-marketplace/superpowers/4.0.2/skills/brainstorming/SKILL.md": skillMD("brainstorming", "An older install.", "old"),
		"home/.claude/plugins/cache/team/review/1.0.0/skills/review/SKILL.md":                                skillMD("review", "Review.", "review"),
		"home/.claude/plugins/cache/team/review-other/1.0.0/skills/review/SKILL.md":                          skillMD("review", "Other project.", "other"),
		"home/.claude/plugins/cache/legacy/old/0.1.0/skills/ancient/SKILL.md":                                skillMD("ancient", "Old shape.", "old"),
		"home/.claude/skills/brainstorming/SKILL.md":                                                         skillMD("brainstorming", "Not the plugin's.", "user"),
		"work/app/.git/HEAD": "ref: refs/heads/main\n",
	})
	res, err := Discover(context.Background(), Options{Home: filepath.Join(base, "home"), WorkDir: filepath.Join(base, "work", "app")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"brainstorming user brainstorming",
		"old:ancient plugin ancient",
		"review:review plugin review",
		"superpowers:brainstorming plugin brainstorming",
	}
	if got := summary(res); !reflect.DeepEqual(got, want) {
		t.Errorf("skills:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, s := range res.Skills {
		if s.Layer == LayerPlugin && (s.Agent != AgentClaudeCode || s.Plugin == "" || s.Copy != CopyInstaller) {
			t.Errorf("%s: agent %q plugin %q copy %s", s.QualifiedName(), s.Agent, s.Plugin, s.Copy)
		}
		if s.QualifiedName() == "superpowers:brainstorming" && !strings.Contains(s.Dir, "4.0.3") {
			t.Errorf("plugin skill from %s, not the installed version", s.Dir)
		}
	}
	var label string
	for _, r := range res.Roots {
		if r.Plugin == "superpowers" {
			label = r.Label
		}
	}
	if label != "plugin:superpowers@superpowers-marketplace" {
		t.Errorf("plugin root label %q", label)
	}
	diags := diagSummary(res.AllDiagnostics(), base)
	if len(diags) != 1 || !strings.Contains(diags[0], `plugin "broken@x": not an install record`) {
		t.Errorf("diagnostics: %v", diags)
	}

	// A file that is not JSON is one warning, and no plugin skills.
	if err := os.WriteFile(filepath.Join(base, "home", ClaudePluginsFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Discover(context.Background(), Options{Home: filepath.Join(base, "home")})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(res); !reflect.DeepEqual(got, []string{"brainstorming user brainstorming"}) {
		t.Errorf("with a broken plugin list: %v", got)
	}
	if d := res.AllDiagnostics(); len(d) != 1 || !strings.Contains(d[0].Message, "cannot read Claude Code's installed plugins") {
		t.Errorf("diagnostics: %v", d)
	}
}

// TestShadowingIsPerAgent checks that Claude Code's and Codex's copies of a
// skill do not shadow each other, while a root every agent shares shadows
// (and is shadowed by) both.
func TestShadowingIsPerAgent(t *testing.T) {
	base := t.TempDir()
	tree(t, base, map[string]string{
		"cli/review/SKILL.md":                 skillMD("review", "Review, from the command line.", "cli"),
		"home/.claude/skills/pdf/SKILL.md":    skillMD("pdf", "Claude's PDF skill.", "claude"),
		"home/.agents/skills/pdf/SKILL.md":    skillMD("pdf", "Codex's PDF skill.", "codex"),
		"home/.codex/skills/pdf/SKILL.md":     skillMD("pdf", "Codex's older folder.", "codex-old"),
		"home/.claude/skills/review/SKILL.md": skillMD("review", "Claude's review.", "claude"),
		"home/.agents/skills/review/SKILL.md": skillMD("review", "Codex's review.", "codex"),
		"system/pdf/SKILL.md":                 skillMD("pdf", "The machine's PDF skill.", "system"),
	})
	res, err := Discover(context.Background(), Options{
		CLIDirs: []string{filepath.Join(base, "cli")}, Home: filepath.Join(base, "home"),
		SystemDirs: []string{filepath.Join(base, "system")},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Skills {
		line := s.QualifiedName() + " " + s.Root[len(base):]
		if s.ShadowedBy != nil {
			line += " shadowed-by " + s.ShadowedBy.Root[len(base):]
		}
		got = append(got, line)
	}
	want := []string{
		"pdf /home/.claude/skills",
		"pdf /home/.agents/skills",
		"pdf /home/.codex/skills shadowed-by /home/.agents/skills",
		"pdf /system shadowed-by /home/.claude/skills",
		"review /cli",
		"review /home/.claude/skills shadowed-by /cli",
		"review /home/.agents/skills shadowed-by /cli",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(res.Active()); n != 3 {
		t.Errorf("%d active skills, want 3 (two agents' pdf and the cli review)", n)
	}
	var preferred []string
	for _, s := range res.Preferred() {
		preferred = append(preferred, s.QualifiedName()+" "+s.Root[len(base):])
	}
	if want := []string{"pdf /home/.claude/skills", "review /cli"}; !reflect.DeepEqual(preferred, want) {
		t.Errorf("Preferred = %v, want %v", preferred, want)
	}
}
