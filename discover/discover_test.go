package discover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixtures is the repository's fixture skill trees.
var fixtures = filepath.Join("..", "testdata", "skills")

// tree writes files (path → content) under dir; content "->target" makes
// a symlink instead.
func tree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasSuffix(rel, "/") {
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func skillMD(name, desc, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n%s\n", name, desc, body)
}

// summary renders each skill as "qualified-name layer rel-dir [shadowed]".
func summary(res *Result) []string {
	var out []string
	for _, s := range res.Skills {
		line := fmt.Sprintf("%s %s %s", s.QualifiedName(), s.Layer, s.RelDir)
		if s.ShadowedBy != nil {
			line += " shadowed-by:" + s.ShadowedBy.Layer.String()
		}
		if !s.Loads() {
			line += " broken"
		}
		if s.Symlinked {
			line += " symlinked"
		}
		out = append(out, line)
	}
	return out
}

func diagSummary(diags []Diagnostic, base string) []string {
	var out []string
	for _, d := range diags {
		out = append(out, strings.ReplaceAll(d.String(), base, "$ROOT"))
	}
	return out
}

func TestDiscoverPublicRepositoryLayouts(t *testing.T) {
	var roots []string
	for _, r := range []string{"anthropic", "openai", "superpowers"} {
		roots = append(roots, filepath.Join(fixtures, r))
	}
	opts := Options{CLIDirs: roots, Mode: Strict}
	res, err := Discover(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"brainstorming cli skills/brainstorming",
		"docx cli skills/docx",
		"gh-fix-ci cli skills/.curated/gh-fix-ci",
		"pdf cli skills/pdf",
		"skill-creator cli skills/skill-creator",
		"skill-installer cli skills/.system/skill-installer",
		"test-driven-development cli skills/test-driven-development",
	}
	if got := summary(res); !reflect.DeepEqual(got, want) {
		t.Errorf("skills:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if diags := res.AllDiagnostics(); HasErrors(diags) {
		t.Errorf("fixtures have errors: %v", diags)
	}
	for _, s := range res.Skills {
		if !filepath.IsAbs(s.Dir) || len(s.ID) != 16 {
			t.Errorf("%s: Dir %q ID %q", s.Name, s.Dir, s.ID)
		}
	}
}

// layered builds a project, a home, an env and a system root with
// overlapping skills and returns the options that search them.
func layered(t *testing.T) (Options, string) {
	base := t.TempDir()
	tree(t, base, map[string]string{
		"repo/.git/HEAD":                              "ref: refs/heads/main\n",
		"repo/.claude/skills/deploy/SKILL.md":         skillMD("deploy", "Deploy from the repository.", "repo body"),
		"repo/sub/.agents/skills/lint/SKILL.md":       skillMD("lint", "Lint the code.", "lint body"),
		"home/.claude/skills/deploy/SKILL.md":         skillMD("deploy", "Deploy, user version.", "user body"),
		"home/.agents/skills/notes/SKILL.md":          skillMD("notes", "Take notes.", "same body"),
		"home/.codex/skills/notes-copy/SKILL.md":      skillMD("notes-copy", "Take notes too.", "same body"),
		"home/.codex/skills/.system/builtin/SKILL.md": skillMD("builtin", "Codex system skill.", "builtin"),
		"env/acme/ops/deploy/SKILL.md":                skillMD("deploy", "Acme's deploy.", "acme body"),
		"env/acme/ops/deploy/scripts/run.sh":          "#!/bin/sh\n",
		"system/lint/SKILL.md":                        skillMD("lint", "System lint.", "system lint"),
		"system/nodesc/SKILL.md":                      "---\nname: nodesc\ndescription: [not, a, string]\n---\nbody\n",
	})
	return Options{
		EnvPath:    filepath.Join(base, "env"),
		WorkDir:    filepath.Join(base, "repo", "sub"),
		Home:       filepath.Join(base, "home"),
		SystemDirs: []string{filepath.Join(base, "system")},
	}, base
}

func TestDiscoverLayersAndShadowing(t *testing.T) {
	opts, base := layered(t)
	res, err := Discover(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"acme/ops/deploy env acme/ops/deploy",
		"builtin user .system/builtin",
		"deploy project deploy",
		"deploy user deploy shadowed-by:project",
		"lint project lint",
		"lint system lint shadowed-by:project",
		"nodesc system nodesc broken",
		"notes user notes",
		"notes-copy user notes-copy",
	}
	if got := summary(res); !reflect.DeepEqual(got, want) {
		t.Errorf("skills:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(res.Duplicates) != 1 || res.Duplicates[0][0].Name != "notes" || res.Duplicates[0][1].Name != "notes-copy" {
		t.Errorf("duplicates: %v", res.Duplicates)
	}
	var active []string
	for _, s := range res.Active() {
		active = append(active, s.QualifiedName())
	}
	if got := strings.Join(active, " "); got != "acme/ops/deploy builtin deploy lint notes notes-copy" {
		t.Errorf("active: %s", got)
	}
	var labels []string
	for _, r := range res.Roots {
		labels = append(labels, fmt.Sprintf("%s %s %v", r.Layer, strings.ReplaceAll(r.Label, base, "$ROOT"), r.Exists))
	}
	wantRoots := []string{
		"env env:1 true",
		"project <project>/sub/.claude/skills false",
		"project <project>/sub/.agents/skills true",
		"project <project>/sub/.codex/skills false",
		"project <project>/sub/.cursor/skills false",
		"project <project>/sub/.github/skills false",
		"project <project>/sub/.gemini/skills false",
		"project <project>/sub/.opencode/skills false",
		"project <project>/.claude/skills true",
		"project <project>/.agents/skills false",
		"project <project>/.codex/skills false",
		"project <project>/.cursor/skills false",
		"project <project>/.github/skills false",
		"project <project>/.gemini/skills false",
		"project <project>/.opencode/skills false",
		"user ~/.claude/skills true",
		"user ~/.agents/skills true",
		"user ~/.codex/skills true",
		"user ~/.cursor/skills false",
		"user ~/.copilot/skills false",
		"user ~/.gemini/skills false",
		"user ~/.config/opencode/skills false",
		"system system:1 true",
	}
	if !reflect.DeepEqual(labels, wantRoots) {
		t.Errorf("roots:\n%s\nwant:\n%s", strings.Join(labels, "\n"), strings.Join(wantRoots, "\n"))
	}
}

func TestDiscoverIsDeterministic(t *testing.T) {
	opts, _ := layered(t)
	var first []string
	for _, workers := range []int{1, 2, 8} {
		opts.Workers = workers
		res, err := Discover(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range res.Skills {
			got = append(got, s.ID+" "+s.Dir)
		}
		if first == nil {
			first = got
		} else if !reflect.DeepEqual(got, first) {
			t.Errorf("workers=%d: order differs:\n%v\n%v", workers, got, first)
		}
	}
}

func TestSkillIDsAreStableAcrossMachines(t *testing.T) {
	ids := func() map[string]string {
		opts, _ := layered(t)
		res, err := Discover(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, s := range res.Skills {
			if s.Layer == LayerProject || s.Layer == LayerUser {
				m[s.Layer.String()+" "+s.RelDir] = s.ID
			}
		}
		return m
	}
	a, b := ids(), ids() // two different temp directories
	if !reflect.DeepEqual(a, b) || len(a) != 6 {
		t.Errorf("IDs differ between homes: %v vs %v", a, b)
	}
}

func TestWalkRules(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	root := filepath.Join(base, "root")
	tree(t, base, map[string]string{
		"outside/escaped/SKILL.md":                   skillMD("escaped", "Outside the root.", "x"),
		"root/good/SKILL.md":                         skillMD("good", "A good skill.", "good"),
		"root/good/nested/SKILL.md":                  skillMD("nested", "Nested in good.", "nested"),
		"root/node_modules/pkg/SKILL.md":             skillMD("pkg", "In node_modules.", "pkg"),
		"root/build/SKILL.md":                        skillMD("build", "A skill named build.", "build"),
		"root/.hidden/secret/SKILL.md":               skillMD("secret", "Hidden.", "secret"),
		"root/.claude/skills/visible/SKILL.md":       skillMD("visible", "Under .claude.", "visible"),
		"root/a/b/c/d/e/f/g/h/deep/SKILL.md":         skillMD("deep", "Too deep.", "deep"),
		"root/a/b/c/d/e/f/g/h/i/deeper/SKILL.md":     skillMD("deeper", "Two levels too deep.", "deeper"),
		"root/a/b/c/d/e/f/g/atbound/SKILL.md":        skillMD("atbound", "At the bound.", "atbound"),
		"root/lower/skill.md":                        skillMD("lower", "Misnamed.", "lower"),
		"root/.shared/real/SKILL.md":                 skillMD("real", "Reached through a link.", "real"),
		"root/linked":                                "->.shared/real",
		"root/again":                                 "->good",
		"root/out":                                   "->" + filepath.Join(outside, "escaped"),
		"root/loop/self":                             "->..",
		"root/dangling":                              "->nowhere",
		"root/filelink/SKILL.md":                     "->" + filepath.Join(outside, "escaped", "SKILL.md"),
		"root/bad-yaml/SKILL.md":                     "---\nname: bad-yaml\ndescription: a: b\n---\n",
		"root/node_modules/pkg/other/skill/SKILL.md": skillMD("other", "x", "x"),
	})
	res, err := DiscoverRoots(context.Background(), []Root{{Path: root, Layer: LayerCLI, Label: "r"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a/b/c/d/e/f/g/atbound cli a/b/c/d/e/f/g/atbound",
		"bad-yaml cli bad-yaml broken",
		"build cli build",
		"filelink cli filelink broken symlinked",
		"good cli good",
		"real cli linked symlinked",
		"visible cli .claude/skills/visible",
	}
	if got := summary(res); !reflect.DeepEqual(got, want) {
		t.Errorf("skills:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantDiags := []string{
		"$ROOT/root/a/b/c/d/e/f/g/h/deep: warning: skill folder is 9 folders below its root $ROOT/root, past the depth bound of 8; not loaded: move it up or give a folder nearer to it as the root",
		"$ROOT/root/bad-yaml/SKILL.md:3: error: invalid YAML in frontmatter: mapping values are not allowed in this context; a value containing ': ' must be quoted",
		"$ROOT/root/dangling: warning: broken symlink: no such file or directory",
		"$ROOT/root/filelink/SKILL.md: error: symlink points outside its root $ROOT/root (to $ROOT/outside/escaped/SKILL.md); not followed, copy the file into the skill",
		"$ROOT/root/linked/SKILL.md:2: warning: name \"real\" does not match its folder \"linked\", which GitHub Copilot (VS Code) and OpenCode require; rename the folder or set 'name: linked'",
		"$ROOT/root/loop/self: warning: symlink cycle: it points to its own ancestor $ROOT/root; not followed",
		"$ROOT/root/lower/skill.md: warning: found skill.md; agents only load a file named exactly SKILL.md, rename it",
		"$ROOT/root/out: warning: symlink points outside its root $ROOT/root (to $ROOT/outside/escaped); not followed, copy or move the skill into the root",
	}
	if got := diagSummary(res.AllDiagnostics(), base); !reflect.DeepEqual(got, wantDiags) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantDiags, "\n"))
	}

	// A deeper bound finds the deep skill.
	res, err = DiscoverRoots(context.Background(), []Root{{Path: root, Layer: LayerCLI, Label: "r"}}, Options{MaxDepth: 10})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range res.Skills {
		if s.Name == "deep" && s.Namespace == "a/b/c/d/e/f/g/h" {
			found = true
		}
	}
	if !found {
		t.Errorf("deep skill not found with MaxDepth 10: %v", summary(res))
	}
}

func TestSameFolderFromTwoRootsLoadsOnce(t *testing.T) {
	base := t.TempDir()
	tree(t, base, map[string]string{"skills/one/SKILL.md": skillMD("one", "One.", "one")})
	opts := Options{CLIDirs: []string{base, filepath.Join(base, "skills")}, EnvPath: filepath.Join(base, "skills")}
	if n := len(opts.Roots()); n != 2 {
		t.Errorf("roots not deduplicated: %d", n)
	}
	res, err := Discover(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(res); !reflect.DeepEqual(got, []string{"one cli skills/one"}) {
		t.Errorf("got %v", got)
	}
}

func TestSingleSkillFolderAsRoot(t *testing.T) {
	res, err := Discover(context.Background(), Options{CLIDirs: []string{filepath.Join(fixtures, "anthropic", "skills", "pdf")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(res); !reflect.DeepEqual(got, []string{"pdf cli ."}) {
		t.Errorf("got %v", got)
	}
}

func TestDiscoverCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Discover(ctx, Options{CLIDirs: []string{fixtures}}); err == nil {
		t.Error("cancelled discovery succeeded")
	}
}

func TestNamespaceOf(t *testing.T) {
	for rel, want := range map[string]string{
		"deploy":                 "",
		"skills/deploy":          "",
		"skills/.curated/pdf":    "",
		"acme/ops/deploy":        "acme/ops",
		"acme/skills/ops/deploy": "acme/ops",
		".claude/skills/x":       "",
	} {
		if got := namespaceOf(rel); got != want {
			t.Errorf("namespaceOf(%q) = %q, want %q", rel, got, want)
		}
	}
}
