package cliout

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrap(t *testing.T) {
	text := "description is 1068 characters, over the Agent Skills spec's limit of 1024: Claude Code loads it, " +
		"Codex skips a skill whose description is that long; shorten it and move detail into the body"
	got := string(Wrap(text, 60, "    "))
	lines := strings.Split(got, "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), got)
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > 60 {
			t.Errorf("line %d is %d runes: %q", i+1, n, l)
		}
		if i > 0 && !strings.HasPrefix(l, "    ") {
			t.Errorf("line %d lacks the indent: %q", i+1, l)
		}
	}
	if back := strings.Join(strings.Fields(got), " "); back != text {
		t.Errorf("words changed:\n%s\n%s", back, text)
	}
	// A name from outside holding a newline stays on its line, quoted.
	if got := string(Wrap("skill evil\nline is long", 200, "")); strings.Count(got, "\n") != 0 {
		t.Errorf("a newline from outside broke the line: %q", got)
	}
	// A word longer than the width is kept whole, on a line of its own.
	long := strings.Repeat("x", 30)
	if got := string(Wrap("a "+long+" b", 10, "  ")); got != "a\n  "+long+"\n  b" {
		t.Errorf("long word: %q", got)
	}
}

// TestReportWriter: a report Writer holds a line until its newline, then
// wraps it at its width (0: whole); a plain Writer never wraps; Reportf
// wraps at the width set on either.
func TestReportWriter(t *testing.T) {
	var out strings.Builder
	w := NewReportWriter(&out, 20)
	w.Write([]byte("skillstore: error: one two "))
	if out.Len() != 0 {
		t.Fatalf("a line not yet ended was passed on: %q", out.String())
	}
	w.Write([]byte("three four five\nshort\n"))
	if want := "skillstore: error:\n    one two three\n    four five\nshort\n"; out.String() != want {
		t.Errorf("wrapped:\n%q\nwant\n%q", out.String(), want)
	}
	out.Reset()
	w.SetWidth(0)
	w.Write([]byte("one two three four five six seven\nend without newline"))
	w.Flush()
	if want := "one two three four five six seven\nend without newline"; out.String() != want {
		t.Errorf("width 0: %q", out.String())
	}

	out.Reset()
	plain := NewWriter(&out)
	plain.SetWidth(10)
	plain.Write([]byte("data is never wrapped on stdout\n"))
	Reportf(plain, "  ", "a finding %s wraps\n", "here")
	if want := "data is never wrapped on stdout\na finding\n  here\n  wraps\n"; out.String() != want {
		t.Errorf("plain writer:\n%q\nwant\n%q", out.String(), want)
	}
}
