package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/treediff"
)

func storeDiffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Category:  "skills",
		Usage:     "show what changed between two versions, or a version and a folder",
		ArgsUsage: "NAME[@A] [@B|DIR]",
		Description: "diff prints a unified diff (line-based) in git's format, with added, removed and\n" +
			"renamed files and executable-bit changes:\n" +
			"  diff NAME          what the latest version changed\n" +
			"  diff NAME@A        from version A to the latest\n" +
			"  diff NAME@A @B     from version A to version B\n" +
			"  diff NAME[@A] DIR  from the version to the folder DIR on disk\n" +
			versionNames + "\n\n" +
			"--stat prints one line per changed file with the lines added and deleted, as\n" +
			"git diff --stat does. On a terminal the diff is coloured (never with NO_COLOR).\n\n" +
			"Exit codes: 0 ok (with or without differences; with --exit-code: no differences);\n" +
			"1 differences found (--exit-code), unknown skill or version, or error; 3 store busy.",
		Flags: []cli.Flag{
			newJSONFlag(),
			&cli.BoolFlag{Name: "exit-code", Usage: "exit 1 when there are differences, 0 when there are none (as git diff --exit-code)"},
			&cli.BoolFlag{Name: "stat", Usage: "print a summary of the lines added and deleted per file instead of the diff"},
		},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 2)
			if err != nil {
				return err
			}
			to := ""
			if len(args) == 2 {
				to = args[1]
			}
			s, err := openStore(c)
			if err != nil {
				return err
			}
			from, err := resolveSpecArg(c, s, args[0])
			if err != nil {
				return err
			}
			res, err := s.Diff(c.Context, from, to)
			if err != nil {
				return err
			}
			if err := writeDiff(c, res); err != nil {
				return err
			}
			if c.Bool("exit-code") && len(res.Changes) > 0 {
				return silentExit(exitError)
			}
			return nil
		},
	}
}

func storeCheckoutCommand() *cli.Command {
	return &cli.Command{
		Name:      "checkout",
		Category:  "skills",
		Usage:     "write a version's files into a folder",
		ArgsUsage: "NAME[@VERSION] DIR",
		Description: "checkout writes the version into DIR atomically: the files go to a temporary folder\n" +
			"next to DIR, which then takes DIR's place in one rename, so DIR is never half\n" +
			"written. A non-empty DIR is refused unless --force, which swaps it atomically and\n" +
			"deletes its old content; --force replaces only a folder holding one skill's files\n" +
			"(its SKILL.md, no other skill, no .git or .skillstore), and a target's folder or\n" +
			"one holding a target is always refused. " + versionNames + "\n\n" +
			"Exit codes: 0 written; 1 DIR not empty (without --force), unknown version, or error;\n" +
			"3 store busy.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "replace the content of a non-empty DIR"}},
		Action: func(c *cli.Context) error {
			s, args, err := openStoreArgs(c, 2, 2)
			if err != nil {
				return err
			}
			spec, err := resolveSpecArg(c, s, args[0])
			if err != nil {
				return err
			}
			if err := refuseTargetFolder(c, s, args[1]); err != nil {
				return err
			}
			v, err := s.Checkout(c.Context, spec, args[1], c.Bool("force"))
			if errors.Is(err, store.ErrNotEmpty) {
				return withHint(err, "nothing was written; pick an empty folder, or use --force to replace its content")
			}
			if err != nil {
				return err
			}
			cliout.Printf(getEnv(c).stdout, "checked out %s into %s\n", v.Name(), args[1])
			return nil
		},
	}
}

// writeDiff prints a diff result as JSON, as a --stat summary, or as a
// unified diff (coloured on a terminal).
func writeDiff(c *cli.Context, res store.DiffResult) error {
	e := getEnv(c)
	if c.Bool("json") {
		if res.Changes == nil {
			res.Changes = []treediff.FileChange{}
		}
		if c.Bool("stat") {
			return cliout.JSON(e.stdout, map[string]any{"from": res.From, "to": res.To, "stat": treediff.Stats(res.Changes)})
		}
		return cliout.JSON(e.stdout, res)
	}
	if len(res.Changes) == 0 {
		cliout.Printf(e.stdout, "no differences between %s and %s\n", res.From, res.To)
		return nil
	}
	if c.Bool("stat") {
		width, ok := cliout.TermWidth(e.stdout)
		if !ok {
			width = 80
		}
		return treediff.WriteStat(e.stdout, treediff.Stats(res.Changes), width)
	}
	return cliout.WriteDiff(e.stdout, res.Changes)
}
