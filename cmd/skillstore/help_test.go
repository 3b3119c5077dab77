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
