package problem_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/skillstore/skillstore/internal/problem"
)

// listError is a List as the store's error types implement it.
type listError struct {
	summary string
	details []string
}

func (e *listError) Error() string     { return problem.Format(e.summary, e.details) }
func (e *listError) Summary() string   { return e.summary }
func (e *listError) Details() []string { return e.details }

// hiding wraps an error without showing its text.
type hiding struct{ err error }

func (h *hiding) Error() string { return "pull failed" }
func (h *hiding) Unwrap() error { return h.err }

func TestFormatAndLines(t *testing.T) {
	for _, tc := range []struct {
		details    []string
		one, lines string
	}{
		{nil, "deploy rejected", "deploy rejected"},
		{[]string{"leak: symlink"}, "deploy rejected: leak: symlink", "deploy rejected:\n  leak: symlink"},
		{[]string{"a: big", "b: fifo"}, "deploy rejected: a: big; b: fifo", "deploy rejected:\n  a: big\n  b: fifo"},
	} {
		if got := problem.Format("deploy rejected", tc.details); got != tc.one {
			t.Errorf("Format(%q) = %q, want %q", tc.details, got, tc.one)
		}
		if got := problem.Lines("deploy rejected", tc.details); got != tc.lines {
			t.Errorf("Lines(%q) = %q, want %q", tc.details, got, tc.lines)
		}
	}
}

func TestExpand(t *testing.T) {
	list := &listError{"remote evil has refs skillstore never writes, refusing it", []string{"refs/heads/skills/A: bad name", "refs/heads/x: unknown"}}
	want := "remote evil has refs skillstore never writes, refusing it:\n  refs/heads/skills/A: bad name\n  refs/heads/x: unknown"
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"bare", list, want},
		{"wrapped", fmt.Errorf("pull evil: %w", list), "pull evil: " + want},
		{"wrapped twice", fmt.Errorf("sync: %w", fmt.Errorf("pull evil: %w", list)), "sync: pull evil: " + want},
		{"joined", errors.Join(errors.New("first"), list), "first\n" + want},
		{"no list", errors.New("plain: a; b"), "plain: a; b"},
		{"in the middle", fmt.Errorf("pull failed (%w), see log", list), "pull failed (" + want + "), see log"},
		{"a wrapper that hides the text", &hiding{list}, "pull failed"},
	} {
		if got := problem.Expand(tc.err); got != tc.want {
			t.Errorf("%s: Expand = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// ExampleExpand shows an error that lists two problems, wrapped with
// context, as a log line and as the command line prints it.
func ExampleExpand() {
	err := fmt.Errorf("add deploy: %w", &listError{"deploy rejected by the safety check", []string{"leak: symlink", "big.bin: over the size cap"}})
	fmt.Println(err)
	fmt.Println(problem.Expand(err))
	// Output:
	// add deploy: deploy rejected by the safety check: leak: symlink; big.bin: over the size cap
	// add deploy: deploy rejected by the safety check:
	//   leak: symlink
	//   big.bin: over the size cap
}
