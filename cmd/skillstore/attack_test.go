package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestAttacks replays the hostile inputs in testdata/attack against the
// skillstore binary, one scenario per attack, and prints how many held per
// class. A scenario's class is its file name up to the first "_"
// (bookkeeping_retired_symlink.txtar is of class "bookkeeping"). An attack
// holds when its scenario passes: the attack was refused, or reached
// nothing it must not, as the scenario's checks say. `make attack` runs
// this test alone; `make test` runs it with the rest.
func TestAttacks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "attack", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no attack scenarios in testdata/attack")
	}
	type tally struct{ tried, held int }
	classes := map[string]*tally{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		class, _, _ := strings.Cut(name, "_")
		c := classes[class]
		if c == nil {
			c = &tally{}
			classes[class] = c
		}
		c.tried++
		bound, err := scenarioBound(file)
		if err != nil {
			t.Fatal(err)
		}
		held := t.Run(name, func(t *testing.T) {
			var deadline time.Time
			if bound > 0 {
				deadline = time.Now().Add(bound)
			}
			testscript.Run(t, testscript.Params{
				Files:               []string{file},
				Deadline:            deadline,
				RequireExplicitExec: true,
				RequireUniqueNames:  true,
				UpdateScripts:       *update,
				Setup:               setupScript,
				Cmds:                scriptCmds,
				Condition: func(cond string) (bool, error) {
					return false, fmt.Errorf("unknown condition %q", cond)
				},
			})
		})
		if held {
			c.held++
		}
	}
	names := make([]string, 0, len(classes))
	for n := range classes {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	tried, held, classesHeld := 0, 0, 0
	for _, n := range names {
		c := classes[n]
		fmt.Fprintf(&b, "  %-14s %d of %d held\n", n, c.held, c.tried)
		tried += c.tried
		held += c.held
		if c.held == c.tried {
			classesHeld++
		}
	}
	fmt.Fprintf(os.Stdout, "attacks: %d of %d held; %d of %d classes held whole\n%s", held, tried, classesHeld, len(names), b.String())
}

// boundLine declares, in a scenario's leading comment, the time within
// which it must end: "# bound: 30s". An attack that makes skillstore hang
// (a FIFO read) or crawl (a quadratic walk) then fails at the bound, its
// processes stopped, instead of holding the suite until the test timeout.
var boundLine = regexp.MustCompile(`(?m)^#\s*bound:\s*(\S+)\s*$`)

// scenarioBound is the bound file declares, 0 for none.
func scenarioBound(file string) (time.Duration, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	m := boundLine.FindSubmatch(txtar.Parse(data).Comment)
	if m == nil {
		return 0, nil
	}
	d, err := time.ParseDuration(string(m[1]))
	if err != nil {
		return 0, fmt.Errorf("%s: bound %q: %w", file, m[1], err)
	}
	return d, nil
}
