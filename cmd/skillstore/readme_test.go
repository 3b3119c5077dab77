package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestREADMEDocumentsEveryCommand keeps README.md honest: every command the
// binary has is named there, as "skillstore NAME" (subcommands as
// "skillstore PARENT ... NAME" on one line, e.g. "skillstore plugin pause|resume").
func TestREADMEDocumentsEveryCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	app := newApp(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard})
	var check func(parents []string, cmds []*cli.Command)
	check = func(parents []string, cmds []*cli.Command) {
		for _, cmd := range cmds {
			if cmd.Hidden || cmd.Name == "help" {
				continue
			}
			path := append(append([]string{}, parents...), cmd.Name)
			if !documented(lines, path) {
				t.Errorf("README.md never names 'skillstore %s'", strings.Join(path, " "))
			}
			check(path, cmd.Subcommands)
		}
	}
	check(nil, app.Commands)
}

// documented reports whether one line of the README holds "skillstore" and
// then every word of path in order, the last one as a whole word, possibly
// as one of several alternatives.
func documented(lines []string, path []string) bool {
	const alternatives = `([a-z-]+\\?\|)*` // "pause|resume", or "pause\|resume" in a table
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = regexp.QuoteMeta(p)
	}
	re := regexp.MustCompile(`skillstore (` + strings.Join(parts[:len(parts)-1], `[ |].*`) + `)?[^a-z-]*` + alternatives + parts[len(parts)-1] + `\b`)
	if len(path) == 1 {
		re = regexp.MustCompile(`skillstore ` + alternatives + parts[0] + `\b`)
	}
	for _, l := range lines {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}
