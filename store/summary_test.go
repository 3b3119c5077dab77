package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestSummaryCacheAppends: a writer appends the summaries of the skills it
// moves instead of rewriting the cache; list reads the latest line of each
// skill, survives a torn append, and compacts the file once stale lines
// pile up.
func TestSummaryCacheAppends(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	root := t.TempDir()
	a := writeSkill(t, root, "alpha", "First.", nil)
	b := writeSkill(t, root, "beta", "Second.", nil)
	if _, err := s.Add(ctx, []string{a, b}, defaultAdd()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx, false); err != nil { // writes the cache whole
		t.Fatal(err)
	}
	path := s.summaryPath()
	before, _ := os.ReadFile(path)

	writeSkill(t, root, "alpha", "First, edited.", nil)
	if _, err := s.Add(ctx, []string{a}, defaultAdd()); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(after), string(before)) || strings.Count(string(after), "\n") != 3 {
		t.Fatalf("cache was not appended to:\n%s", after)
	}
	checkList := func(want string) {
		t.Helper()
		list, err := s.List(ctx, false)
		if err != nil || len(list) != 2 || list[0].Description != want || list[0].Number != 2 {
			t.Fatalf("list = %+v, %v", list, err)
		}
	}
	checkList("First, edited.")

	// A torn append (no final newline) is skipped; the next one starts
	// on its own line.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("alpha\t0123")
	f.Close()
	checkList("First, edited.")
	writeSkill(t, root, "alpha", "First, edited again.", nil)
	if _, err := s.Add(ctx, []string{a}, defaultAdd()); err != nil {
		t.Fatal(err)
	}
	sums := loadSummaries(path)
	if sums["alpha"].Description != "First, edited again." || sums["beta"].Description != "Second." {
		t.Fatalf("cache after a torn append: %+v", sums)
	}

	// Stale lines are compacted by a reader.
	for i := 0; i < 70; i++ {
		s.updateSummaries(map[string]*Summary{"beta": ptr(sums["beta"])})
	}
	if _, err := s.List(ctx, false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); strings.Count(string(data), "\n") != 2 {
		t.Errorf("cache not compacted: %d lines", strings.Count(string(data), "\n"))
	}
}

func ptr[T any](v T) *T { return &v }

// TestLoadSummariesOfMatchesLoadSummaries: looking up a few names in the
// cache gives what reading all of it gives, whatever the line order, the
// repeated names (later lines win) and the lines that do not parse.
func TestLoadSummariesOfMatchesLoadSummaries(t *testing.T) {
	path := t.TempDir() + "/summary"
	var lines []string
	sum := func(name string, n int) string {
		var buf bytes.Buffer
		writeSummaryLine(&buf, Summary{Name: name, Number: n, Description: fmt.Sprintf("%s v%d", name, n)})
		return strings.TrimSuffix(buf.String(), "\n")
	}
	lines = append(lines, sum("first", 1), sum("b", 1), sum("a-b", 1), sum("b", 2), "b\t0123 torn", sum("first", 2), sum("x", 1), sum("b", 3), "b\tbad")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	all := loadSummaries(path)
	names := []string{"first", "b", "a-b", "x", "a", "missing"}
	got := loadSummariesOf(path, names)
	for _, n := range names {
		if got[n] != all[n] {
			t.Errorf("%s: %+v, all has %+v", n, got[n], all[n])
		}
	}
	if got["b"].Number != 3 || got["first"].Number != 2 || len(got) != 4 {
		t.Errorf("got %+v", got)
	}
}
