package discover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestClassifyCopy(t *testing.T) {
	for _, c := range []struct {
		dir    string
		inRepo bool
		want   CopyKind
	}{
		{"/src/skills-repo/skills/pdf", true, CopyRepository},
		{"/home/u/.agents/skills/pdf", false, CopyInstaller},
		{"/src/app/.agents/skills/pdf", true, CopyInstaller}, // a project's npx skills install
		{"/home/u/.claude/plugins/cache/m/p/1.0/skills/pdf", true, CopyInstaller},
		{"/home/u/.claude/skills/pdf", false, CopyAgent},
		{"/src/app/.claude/skills/pdf", true, CopyAgent},
		{"/home/u/.codex/skills/pdf", false, CopyAgent},
		{"/tmp/export/pdf", false, CopyOther},
	} {
		if got := classifyCopy(c.dir, c.inRepo); got != c.want {
			t.Errorf("classifyCopy(%q, %v) = %s, want %s", c.dir, c.inRepo, got, c.want)
		}
	}
}

// TestLocateCanonicalOrder checks that the copies of one skill come
// repository first, then .agents/skills, then agent folders, then the
// rest, and that a symlinked agent folder (npx skills' default) is one
// folder, not two.
func TestLocateCanonicalOrder(t *testing.T) {
	base := t.TempDir()
	body := skillMD("pdf", "Read PDFs.", "same")
	tree(t, base, map[string]string{
		"home/src/pdf-skill/.git/HEAD":               "ref: refs/heads/main\n",
		"home/src/pdf-skill/skills/pdf/SKILL.md":     body,
		"home/.agents/skills/pdf/SKILL.md":           body,
		"home/.claude/skills/pdf":                    "->../../.agents/skills/pdf",
		"home/.codex/skills/pdf/SKILL.md":            body,
		"home/backup/pdf/SKILL.md":                   body,
		"home/src/plugin/.claude-plugin/plugin.json": "{}\n",
		"home/src/plugin/skills/lint/SKILL.md":       skillMD("lint", "Lint.", "lint"),
	})
	found, diags, err := Locate(context.Background(), filepath.Join(base, "home"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.Copy.String()+" "+f.RelDir)
	}
	want := []string{
		"repository src/pdf-skill/skills/pdf",
		"repository src/plugin/skills/lint",
		"installer .agents/skills/pdf",
		"agent .codex/skills/pdf",
		"other backup/pdf",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Locate:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLocateIsDiscoversWalk checks that import's walk and discovery's find
// the same folders, whatever the tree: they are one walk.
func TestLocateIsDiscoversWalk(t *testing.T) {
	base := t.TempDir()
	files := map[string]string{}
	for i, rel := range []string{
		"a", "skills/b", "skills/.curated/c", ".agents/skills/d", ".claude/skills/e", ".codex/skills/f",
		"build/g", "build/nested/h", "dist/i", "venv/j", ".venv/k", "node_modules/l", ".hidden/m",
		"deep/1/2/3/4/5/6/n", "deep/1/2/3/4/5/6/7/o", ".claude-plugin/p", "x/.experimental/q",
	} {
		files[rel+"/SKILL.md"] = skillMD(filepath.Base(rel), fmt.Sprintf("Skill %d.", i), rel)
	}
	tree(t, base, files)
	found, diags, err := Locate(context.Background(), base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := DiscoverRoots(context.Background(), []Root{{Path: base, Layer: LayerCLI, Label: "cli:1"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var located, discovered []string
	for _, f := range found {
		located = append(located, f.RelDir)
	}
	for _, s := range res.Skills {
		discovered = append(discovered, s.RelDir)
	}
	sort.Strings(located)
	sort.Strings(discovered)
	want := []string{".agents/skills/d", ".claude/skills/e", ".codex/skills/f", "a", "deep/1/2/3/4/5/6/n", "skills/.curated/c", "skills/b", "x/.experimental/q"}
	if !reflect.DeepEqual(located, want) || !reflect.DeepEqual(discovered, want) {
		t.Errorf("located %v\ndiscovered %v\nwant %v", located, discovered, want)
	}
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "past the depth bound of 8") || !strings.HasSuffix(diags[0].File, "deep/1/2/3/4/5/6/7/o") {
		t.Errorf("want one depth warning for deep/.../7/o, got %v", diags)
	}
}

func TestLocateErrors(t *testing.T) {
	base := t.TempDir()
	if _, _, err := Locate(context.Background(), filepath.Join(base, "nowhere"), Options{}); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("missing root: %v", err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Locate(context.Background(), file, Options{}); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("file root: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Locate(ctx, base, Options{}); err == nil {
		t.Error("cancelled Locate succeeded")
	}
}
