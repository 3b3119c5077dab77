package merge

import (
	"strings"
	"testing"
)

// TestReadMarked reads back the conflicts Text writes, in each style, and
// checks their sides against the conflicts Text reports.
func TestReadMarked(t *testing.T) {
	base := "# T\n\nkeep\nRead the diff.\nkeep\nend\n"
	ours := "# T\n\nkeep\nRead the diff line by line.\nkeep\nend\nours\n"
	theirs := "# T\n\nkeep\nRead the whole diff.\nkeep\nend\ntheirs\n"
	for _, style := range []Style{Diff3, Plain, ZDiff3} {
		res, err := Text([]byte(base), []byte(ours), []byte(theirs), Options{Style: style, Labels: Labels{Ours: "published v2", Base: "base", Theirs: "upstream x"}})
		if err != nil {
			t.Fatal(err)
		}
		got := ReadMarked(res.Merged)
		if len(got) != len(res.Conflicts) || len(got) == 0 {
			t.Fatalf("style %v: %d blocks read, %d conflicts:\n%s", style, len(got), len(res.Conflicts), res.Merged)
		}
		for i, m := range got {
			c := res.Conflicts[i]
			if m.Ours != c.Ours.Text || m.Theirs != c.Theirs.Text || m.OursLabel != "published v2" || m.TheirsLabel != "upstream x" {
				t.Errorf("style %v, block %d: %+v, want %+v", style, i, m, c)
			}
			if m.HasBase != (style != Plain) || m.HasBase && m.Base != c.Base.Text {
				t.Errorf("style %v, block %d: base %v %q, want %q", style, i, m.HasBase, m.Base, c.Base.Text)
			}
			if lines := strings.Split(string(res.Merged), "\n"); !strings.HasPrefix(lines[m.Line-1], "<<<<<<< ") {
				t.Errorf("style %v, block %d: line %d is %q", style, i, m.Line, lines[m.Line-1])
			}
		}
	}
	// An unfinished block is not a conflict.
	if got := ReadMarked([]byte("<<<<<<< a\nx\n=======\ny\n")); len(got) != 0 {
		t.Errorf("an unfinished block read as %+v", got)
	}
}

// TestWordDiff checks that the spans rebuild both texts, on the corpus's
// sentences and on texts past the word merge's limits.
func TestWordDiff(t *testing.T) {
	pairs := [][2]string{
		{"Read the diff line by line.\n", "Read the diff hunk by hunk (locally: ask).\n"},
		{"", "new\n"}, {"old\n", ""}, {"same\n", "same\n"},
		{strings.Repeat("a b ", 3000), strings.Repeat("b a ", 3000)},
	}
	for _, p := range pairs {
		var old, new strings.Builder
		for _, s := range WordDiff(p[0], p[1]) {
			if s.Op != WordAdded {
				old.WriteString(s.Text)
			}
			if s.Op != WordDeleted {
				new.WriteString(s.Text)
			}
		}
		if old.String() != p[0] || new.String() != p[1] {
			t.Errorf("WordDiff(%.40q, %.40q) rebuilds %.40q, %.40q", p[0], p[1], old.String(), new.String())
		}
	}
	got := WordDiff("Read the diff line by line.", "Read the diff hunk by hunk.")
	want := []WordSpan{{WordSame, "Read the diff "}, {WordDeleted, "line"}, {WordAdded, "hunk"}, {WordSame, " by "}, {WordDeleted, "line"}, {WordAdded, "hunk"}, {WordSame, "."}}
	if len(got) != len(want) {
		t.Fatalf("spans %+v, want %+v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("span %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestResolveAround pins RuleLines on the shapes the word merge may refuse
// as too large: lines added after, or before, what the other side rewrote,
// a last line without a line end that the adding side ends (and so ends
// the other side's rewrite of it), and the refusals (a fence, an added
// line that rewords one of the other side's).
func TestResolveAround(t *testing.T) {
	for _, c := range []struct {
		base, ours, theirs string
		fenced             bool
		want               string // "" for a refusal
	}{
		{"old a\nold b\n", "old a\nold b\n\nLocal note.\n", "new text\n", false, "new text\n\nLocal note.\n"},
		{"old a\n", "Local note.\nold a\n", "new text\n", false, "Local note.\nnew text\n"},
		{"new text\n", "upstream rewrote it\n", "new text\nmine\n", false, "upstream rewrote it\nmine\n"},
		{"last", "last\n\nLocal note.\n", "rewritten last line\n", false, "rewritten last line\n\nLocal note.\n"},
		{"last", "last\n\nLocal note.\n", "rewritten, no end", false, "rewritten, no end\n\nLocal note.\n"},
		{"last", "last\r\nLocal note.\r\n", "rewritten, no end", false, "rewritten, no end\r\nLocal note.\r\n"},
		{"last", "last\n\nLocal note.\n", "", false, ""},
		{"last\r\n", "last\r\nLocal.\r\n", "new\r\n", false, "new\r\nLocal.\r\n"},
		{"old a\n", "old a\nLocal note.\n", "new text\n", true, ""},
		{"old a\n", "old a\nLocal note.\n", "new text", false, ""},
		{"Write a message.\n", "Write a message.\nRun the tests before you commit.\n", "Write a good message.\nRun the tests before committing.\n", false, ""},
		{"a\n", "a changed\n", "a\nb\n", false, "a changed\nb\n"},
		{"a\n", "x\na\ny\n", "z\n", false, ""},
	} {
		r := resolveAround(c.base, c.ours, c.theirs, c.fenced)
		switch {
		case c.want == "" && r != nil:
			t.Errorf("%q %q %q: resolved as %q, want a refusal", c.base, c.ours, c.theirs, r.text)
		case c.want != "" && (r == nil || r.text != c.want || r.rule != RuleLines):
			t.Errorf("%q %q %q: %+v, want %q", c.base, c.ours, c.theirs, r, c.want)
		}
	}
}
