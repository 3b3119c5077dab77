package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"add", "add", 0}, {"ad", "add", 1}, {"lsit", "list", 1},
		{"plugn", "plugin", 1}, {"sycn", "sync", 1}, {"export", "import", 2}, {"", "rm", 2},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSuggestNames(t *testing.T) {
	names := []string{"add", "adopt", "list", "show", "pause", "resume", "rm"}
	tests := []struct {
		typed string
		want  []string
	}{
		{"ad", []string{"add", "adopt"}}, // a prefix of both
		{"lsit", []string{"list"}},       // a transposition
		{"rn", []string{"rm"}},           // one edit
		{"zzzzzz", nil},                  // nothing close
		{"sho", []string{"show"}},        // a prefix
		{"resum", []string{"resume"}},    // a prefix
		{"pasue", []string{"pause"}},     // a transposition
	}
	for _, tt := range tests {
		if got := suggestNames(tt.typed, names); !slices.Equal(got, tt.want) {
			t.Errorf("suggestNames(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

// TestHelpWraps: help lines wrap at the report width like every message
// for people, a flag's description continuing under its own column; with
// --width 0 each stays on one line.
func TestHelpWraps(t *testing.T) {
	t.Setenv("SKILLSTORE_WIDTH", "")
	help := func(args ...string) []string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append([]string{"skillstore"}, args...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("skillstore %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return strings.Split(out.String(), "\n")
	}
	for _, args := range [][]string{{"--help"}, {"sync", "--help"}, {"plugin", "add", "--help"}} {
		for _, l := range help(args...) {
			if n := utf8.RuneCountInString(l); n > 120 {
				t.Errorf("skillstore %s: a line of %d characters: %q", strings.Join(args, " "), n, l)
			}
		}
	}
	lines := help("sync", "--help")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "--skill-aware") })
	if i < 0 || i+1 == len(lines) {
		t.Fatalf("sync --help lacks --skill-aware:\n%s", strings.Join(lines, "\n"))
	}
	col := strings.Index(lines[i], "merge Markdown")
	if next := lines[i+1]; col < 0 || len(next) <= col || strings.TrimSpace(next[:col]) != "" || next[col] == ' ' {
		t.Errorf("--skill-aware's description does not continue under its column %d:\n%s\n%s", col, lines[i], next)
	}
	whole := help("--width", "0", "sync", "--help")
	if !slices.ContainsFunc(whole, func(l string) bool {
		return strings.Contains(l, "--skill-aware") && strings.HasSuffix(l, "(default: false)")
	}) {
		t.Errorf("--width 0 wrapped the help:\n%s", strings.Join(whole, "\n"))
	}
	// The app's own help comes before its flags are read: the variable
	// holds there too.
	t.Setenv("SKILLSTORE_WIDTH", "0")
	if !slices.ContainsFunc(help("--help"), func(l string) bool { return utf8.RuneCountInString(l) > 120 }) {
		t.Errorf("SKILLSTORE_WIDTH=0 wrapped the app's help")
	}
}
