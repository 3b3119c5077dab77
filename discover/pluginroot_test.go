package discover

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestWalkReadsPluginLayouts checks that a folder holding a plugin or a
// marketplace manifest is read with the layout reader plugin add uses:
// the skills its manifest names (even past the depth bound), not a draft
// beside them; a folder without a manifest is walked as before, and a
// manifest that cannot be read is a warning and a plain walk.
func TestWalkReadsPluginLayouts(t *testing.T) {
	base := t.TempDir()
	tree(t, base, map[string]string{
		"tools/.claude-plugin/plugin.json":            `{"name": "tools", "skills": ["./skills/hello", "./deep/1/2/3/4/5/6/7/8/far"]}`,
		"tools/skills/hello/SKILL.md":                 skillMD("hello", "Hello.", "hi"),
		"tools/skills/draft/SKILL.md":                 skillMD("draft", "Draft.", "draft"),
		"tools/deep/1/2/3/4/5/6/7/8/far/SKILL.md":     skillMD("far", "Far.", "far"),
		"market/.claude-plugin/marketplace.json":      `{"name": "m", "plugins": [{"name": "a", "source": "./plugins/a"}, {"name": "r", "source": {"source": "github", "repo": "o/r"}}]}`,
		"market/plugins/a/skills/.curated/x/SKILL.md": skillMD("x", "X.", "x"),
		"market/stray/SKILL.md":                       skillMD("stray", "Stray.", "stray"),
		"plain/skills/y/SKILL.md":                     skillMD("y", "Y.", "y"),
		"broken/.codex-plugin/plugin.json":            `{"name": `,
		"broken/skills/z/SKILL.md":                    skillMD("z", "Z.", "z"),
	})
	found, diags, err := Locate(context.Background(), base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.RelDir)
	}
	want := []string{
		"broken/skills/z",
		"market/plugins/a/skills/.curated/x",
		"tools/deep/1/2/3/4/5/6/7/8/far",
		"tools/skills/hello",
		"plain/skills/y",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Locate:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "plugin layout: .codex-plugin/plugin.json: line 1: invalid JSON") {
		t.Errorf("diagnostics = %v, want one for the broken manifest", diags)
	}
}
