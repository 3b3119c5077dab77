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
