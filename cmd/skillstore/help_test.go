package main

import (
	"slices"
	"testing"
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
		if got := fileSummary(paths, tt.budget, tt.verbose); got != tt.want {
			t.Errorf("fileSummary(budget %d, verbose %v) = %q, want %q", tt.budget, tt.verbose, got, tt.want)
		}
	}
	if got := fileSummary(paths[:3], -1, false); got != "SKILL.md, scripts/run.sh, a.txt" {
		t.Errorf("three paths are listed whole, got %q", got)
	}
}
