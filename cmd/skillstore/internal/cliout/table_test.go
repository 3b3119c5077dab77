package cliout

import "testing"

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
