package main

import (
	"fmt"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/urfave/cli/v2"
)

func upgradeCommand() *cli.Command {
	return &cli.Command{
		Name:     "upgrade",
		Category: "inspection",
		Usage:    "move the store to the current ref layout (every command does it first)",
		Description: "upgrade moves a store made by an older release to the current ref layout, in place:\n" +
			"plugins' skills move from refs/heads/skills/NAME to refs/heads/plugins/PLUGIN/NAME (their\n" +
			"name is PLUGIN:NAME), candidates to refs/heads/candidates/skills/NAME or\n" +
			"refs/heads/candidates/plugins/PLUGIN/NAME, superseded candidates likewise, and the state\n" +
			"records the layout. History is kept: refs move, no commit is rewritten. The first command\n" +
			"that opens the store does the same by itself; this runs it explicitly (--dry-run lists\n" +
			"what would move). It is crash-safe: a kill leaves a store the next command upgrades.\n\n" +
			"Exit codes: 0 done (or nothing to do); 1 error; 3 store busy.",
		Flags: []cli.Flag{newJSONFlag(), dryRunFlag("list what would move, write nothing")},
		Action: func(c *cli.Context) error {
			dry := c.Bool("dry-run")
			s, err := global(c).OpenStore(c.Context)
			if err != nil {
				return err
			}
			if dry {
				s = s.DryRun()
			}
			rep, err := s.Upgrade(c.Context)
			if err != nil {
				return err
			}
			out := getEnv(c).stdout
			if c.Bool("json") {
				return cliout.JSON(out, rep)
			}
			if !rep.Upgraded {
				cliout.Printf(out, "the store is in layout %d already: nothing to do\n", rep.To)
				return nil
			}
			for _, m := range rep.Refs {
				cliout.Printf(out, "  %s -> %s\n", m.From, m.To)
			}
			for _, m := range rep.Records {
				cliout.Printf(out, "  record %s -> %s\n", m.From, m.To)
			}
			verb := "upgraded"
			if dry {
				verb = "would upgrade"
			}
			cliout.Printf(out, "%s the store from layout %d to %d: %s, %s\n", verb, rep.From, rep.To, countOf(len(rep.Refs), "ref"), countOf(len(rep.Records), "record"))
			if dry {
				cliout.Println(out, "dry run: nothing was written")
			}
			return nil
		},
	}
}

// countOf is n words: "1 ref", "9 refs".
func countOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
