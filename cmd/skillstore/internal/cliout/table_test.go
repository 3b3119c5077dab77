package cliout

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFileSummary(t *testing.T) {
	paths := []string{"SKILL.md", "scripts/run.sh", "a.txt", "b.txt", "c.txt"}
	tests := []struct {
		budget  int
		verbose bool
		want    string
	}{
		{-1, false, "SKILL.md, scripts/run.sh and 3 more"},
		{-1, true, "SKILL.md, scripts/run.sh, a.txt, b.txt, c.txt"},
		{100, false, "SKILL.md, scripts/run.sh, a.txt, b.txt, c.txt"},
		{42, false, "SKILL.md, scripts/run.sh, a.txt and 2 more"},
		{41, false, "SKILL.md, scripts/run.sh and 3 more"},
		{5, false, "SKILL.md and 4 more"}, // at least one name
	}
	for _, tt := range tests {
		if got := FileSummary(paths, tt.budget, tt.verbose); got != tt.want {
			t.Errorf("FileSummary(budget %d, verbose %v) = %q, want %q", tt.budget, tt.verbose, got, tt.want)
		}
	}
	if got := FileSummary(paths[:3], -1, false); got != "SKILL.md, scripts/run.sh, a.txt" {
		t.Errorf("three paths are listed whole, got %q", got)
	}
}

// TestTableWrapsLastCell: at a report width, a long last cell (a message)
// wraps under its own column; without one it stays on its line.
func TestTableWrapsLastCell(t *testing.T) {
	build := func() *Table {
		tb := NewTable(-1)
		tb.Add("claude", "deploy", "left alone: a symbolic link that export did not create; 'skillstore export --replace-links' replaces it")
		return tb
	}
	var out strings.Builder
	w := NewWriter(&out)
	w.SetWidth(70)
	if err := build().Write(w, Painter{}, 0); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("not wrapped: %q", out.String())
	}
	col := strings.Index(lines[0], "left alone")
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > 70 {
			t.Errorf("line %d is %d runes: %q", i+1, n, l)
		}
		if i > 0 && (len(l) <= col || strings.TrimSpace(l[:col]) != "") {
			t.Errorf("line %d is not under the last column (%d): %q", i+1, col, l)
		}
	}
	out.Reset()
	w.SetWidth(0)
	build().Write(w, Painter{}, 0)
	if strings.Count(out.String(), "\n") != 1 {
		t.Errorf("width 0 wrapped: %q", out.String())
	}
}

// TestTableRowsFitTheTerminal: at a terminal width, names too long for a
// row are shortened in the middle (start and end kept) so that no row is
// wider than the terminal; without a width, they stay whole.
func TestTableRowsFitTheTerminal(t *testing.T) {
	long := "bigplug:skill-with-a-rather-long-descriptive-name-number-13"
	build := func() *Table {
		tb := NewTable(2)
		tb.Add("claude", long, "hot", "SKILL.md")
		tb.Add("codex", "bigplug:short", "cold", "installed: SKILL.md")
		return tb
	}
	var b strings.Builder
	if err := build().Write(&b, Painter{}, 70); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 70 {
			t.Errorf("row of %d columns at width 70: %q", n, line)
		}
	}
	if !strings.Contains(b.String(), "bigplug:skill-wi") || !strings.Contains(b.String(), "number-13") || !strings.Contains(b.String(), "…") {
		t.Errorf("the long name is not shortened in the middle:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "bigplug:short ") {
		t.Errorf("a name that fits is shortened:\n%s", b.String())
	}
	b.Reset()
	if err := build().Write(&b, Painter{}, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), long) {
		t.Errorf("without a width the name is not whole:\n%s", b.String())
	}
	if got := ShortenMiddle("abcdefghij", 5); got != "ab…ij" {
		t.Errorf("ShortenMiddle = %q, want ab…ij", got)
	}
}
