package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
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
		held := t.Run(name, func(t *testing.T) {
			testscript.Run(t, testscript.Params{
				Files:               []string{file},
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
