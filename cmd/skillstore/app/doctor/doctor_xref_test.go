package doctor

import (
	"reflect"
	"testing"
)

// TestFindRefsMatchesOnlyKnownPlugins keeps the cross-reference rule
// strict: only PLUGIN:NAME with a known plugin, never URLs, times, YAML
// keys, paths or the frontmatter.
func TestFindRefsMatchesOnlyKnownPlugins(t *testing.T) {
	plugins := map[string]bool{"superpowers": true, "chat": true}
	md := "---\nname: brainstorming\ndescription: Then use superpowers:writing-plans.\n---\n" + // line 1-4: frontmatter
		"Next, use superpowers:writing-plans to plan.\n" + // 5: match
		"See https://example.com/superpowers:x and mailto:chat@x and at 10:30.\n" + // 6: none
		"superpowers: a YAML-like key\n" + // 7: none
		"Use `superpowers:test-driven-development` or (chat:access), then chat:access.\n" + // 8: three
		"Not other:skill, nor superpowers:writing-plans:extra, nor /superpowers:x.\n" + // 9: none
		"Unknown plugin foo:bar.\n" // 10: none
	got := findRefs("SKILL.md", []byte(md), plugins)
	var refs []string
	var lines []int
	for _, r := range got {
		refs = append(refs, r.Ref)
		lines = append(lines, r.Line)
	}
	if want := []string{"superpowers:writing-plans", "superpowers:test-driven-development", "chat:access", "chat:access"}; !reflect.DeepEqual(refs, want) {
		t.Errorf("refs = %v, want %v", refs, want)
	}
	if want := []int{5, 8, 8, 8}; !reflect.DeepEqual(lines, want) {
		t.Errorf("lines = %v, want %v", lines, want)
	}
	if got := findRefs("scripts/run.sh", []byte("superpowers:writing-plans\n"), plugins); len(got) != 0 {
		t.Errorf("a script was scanned: %v", got)
	}
	if got := findRefs("references/guide.md", []byte("a\nsuperpowers:writing-plans\n"), plugins); len(got) != 1 || got[0].Line != 2 {
		t.Errorf("references/guide.md: %v", got)
	}
}
