package app

import "testing"

// TestGroupNotesKeepsQuotesWhole: notes that differ in a quoted name
// (one word or several) are one group, and its text elides the names
// inside their quotes, never leaving a quote open.
func TestGroupNotesKeepsQuotesWhole(t *testing.T) {
	notes := []Note{
		{Where: "nm:agent-development", Text: `name "Agent Development" is not in the spec's form; set 'name: agent-development'`},
		{Where: "nm:hook-writing", Text: `name "Hook Writing" is not in the spec's form; set 'name: hook-writing'`},
		{Where: "nm:plugin-settings-guide", Text: `name "Plugin Settings Guide" is not in the spec's form; set 'name: plugin-settings-guide'`},
	}
	groups := GroupNotes(notes)
	if len(groups) != 1 {
		t.Fatalf("%d groups, want 1: %+v", len(groups), groups)
	}
	want := `name "…" is not in the spec's form; set 'name: …'`
	if g := groups[0]; g.Text != want || g.Count != 3 {
		t.Errorf("group = %q (%d notes), want %q (3)", g.Text, g.Count, want)
	}
	// Notes of other kinds stay apart.
	other := append(notes[:1:1], Note{Where: "x", Text: "description is empty"})
	if groups := GroupNotes(other); len(groups) != 2 {
		t.Errorf("notes of two kinds gave %d groups", len(groups))
	}
	for _, tt := range []struct {
		words []string
		want  string
	}{
		{[]string{`"agent-development"`, `"hook-writing"`}, `"…"`},
		{[]string{"12", "345"}, "…"},
		{[]string{"SKILL.md:3:", "SKILL.md:12:"}, "SKILL.md:…:"},
	} {
		if got := elide(tt.words); got != tt.want {
			t.Errorf("elide(%q) = %q, want %q", tt.words, got, tt.want)
		}
	}
}
