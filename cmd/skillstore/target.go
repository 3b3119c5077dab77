package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/skillstore/skillstore/reload/target"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/store"
)

func targetCommand() *cli.Command {
	return &cli.Command{
		Name:     "target",
		Category: "targets",
		Usage:    "manage the agents' skills folders that export writes to",
		Description: "A target is an agent's skills folder (~/.claude/skills, ~/.codex/skills,\n" +
			".agents/skills, ...). 'skillstore export' writes the active published skills\n" +
			"into every target, one folder per skill, and never touches folders it did\n" +
			"not create.\n\n" +
			"Exit codes: 0 success, 1 error (unknown target, store problem), 2 usage error,\n" +
			"3 store lock busy.",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "add a target folder",
				ArgsUsage: "NAME DIR",
				Description: "Records the target NAME (lowercase letters, digits, '.', '_', '-') for the\n" +
					"folder DIR, which need not exist yet. --skills limits the target to skills\n" +
					"whose names match one of the glob patterns (repeatable, e.g. --skills 'git-*').\n\n" +
					"Examples:\n" +
					"  skillstore target add claude ~/.claude/skills\n" +
					"  skillstore target add codex ~/.codex/skills --skills 'deploy*' --skills lint",
				Flags: []cli.Flag{
					&cli.StringSliceFlag{Name: "skills", Usage: "export only skills matching `GLOB` (repeatable)"},
				},
				Action: runTargetAdd,
			},
			{
				Name:   "list",
				Usage:  "list targets",
				Flags:  []cli.Flag{newJSONFlag()},
				Action: runTargetList,
			},
			{
				Name:      "rm",
				Usage:     "forget a target (its folder is left as it is)",
				ArgsUsage: "NAME",
				Action:    runTargetRm,
			},
		},
	}
}

// readTargets returns the targets named (all of them when names is empty),
// sorted by name.
func readTargets(c *cli.Context, s *store.Store, names []string) ([]target.Target, error) {
	return target.List(c.Context, s, names)
}

func runTargetAdd(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) != 2 {
		return withHint(usageErrorf("target add takes NAME and DIR"), "run 'skillstore target add --help' for usage")
	}
	name, dir := args[0], args[1]
	if err := target.CheckName(name); err != nil {
		return usageErrorf("%v", err)
	}
	globs := c.StringSlice("skills")
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			return usageErrorf("--skills %q is not a valid glob pattern", g)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if info, err := os.Stat(abs); err == nil && !info.IsDir() {
		return withHint(fmt.Errorf("target %s: %s is not a folder", name, abs), "give the agent's skills folder, for example ~/.claude/skills")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	if err := target.Add(c.Context, s, target.Target{Name: name, Dir: abs, Skills: globs}); err != nil {
		return err
	}
	fmt.Fprintf(getEnv(c).stdout, "added target %s: %s\n", name, abs)
	return nil
}

func runTargetList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("target list takes no arguments")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	targets, err := readTargets(c, s, nil)
	if err != nil {
		return err
	}
	e := getEnv(c)
	if c.Bool("json") {
		if targets == nil {
			targets = []target.Target{}
		}
		return writeJSON(e.stdout, targets)
	}
	if len(targets) == 0 {
		fmt.Fprintln(e.stdout, "no targets; add one with 'skillstore target add NAME DIR'")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDIR\tSKILLS")
	for _, t := range targets {
		skills := "*"
		if len(t.Skills) > 0 {
			skills = strings.Join(t.Skills, ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Dir, skills)
	}
	return tw.Flush()
}

func runTargetRm(c *cli.Context) error {
	if c.NArg() != 1 {
		return withHint(usageErrorf("target rm takes one NAME"), "run 'skillstore target list' to see the targets")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	t, err := target.Remove(c.Context, s, c.Args().First())
	if err != nil {
		return err
	}
	fmt.Fprintf(getEnv(c).stdout, "removed target %s; its folder %s is left as it is\n", t.Name, t.Dir)
	return nil
}
