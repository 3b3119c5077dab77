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
