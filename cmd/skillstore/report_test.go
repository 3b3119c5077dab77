package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/skillstore/skillstore/store/safety"
)

// TestReportListsProblemsOnePerLine checks that an error carrying a list of
// problems, wrapped with context (its hint from the error table), is printed as its summary line
// and one problem per line, while its own message stays on one line.
func TestReportListsProblemsOnePerLine(t *testing.T) {
	rej := &safety.RejectedError{Skill: "deploy", Problems: []safety.Problem{
		{Path: "leak", Reason: `symlink (to "/etc/passwd"); copy the file instead`},
		{Path: "pipe", Reason: "device, socket, fifo or submodule; only regular files are stored"},
	}}
	err := fmt.Errorf("add %s: %w", "skills/deploy", rej)
	var stderr bytes.Buffer
	if code := report(&stderr, err); code != exitError {
		t.Errorf("exit code %d, want %d", code, exitError)
	}
	want := `skillstore: error: add skills/deploy: deploy rejected by the safety check:
  leak: symlink (to "/etc/passwd"); copy the file instead
  pipe: device, socket, fifo or submodule; only regular files are stored
skillstore: hint: nothing was written; remove or replace the files listed and add again
`
	if got := stderr.String(); got != want {
		t.Errorf("report printed\n%s\nwant\n%s", got, want)
	}
	if got, want := err.Error(), `add skills/deploy: deploy rejected by the safety check: leak: symlink (to "/etc/passwd"); copy the file instead; pipe: device, socket, fifo or submodule; only regular files are stored`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
