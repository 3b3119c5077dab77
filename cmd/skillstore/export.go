package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/skillstore/skillstore/reload/target"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/reload"
)

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Category:  "targets",
		Usage:     "write the published skills into the target folders",
		ArgsUsage: "[TARGET...]",
		Description: "Writes the latest version of every active skill into each target (all targets\n" +
			"unless some are named), one folder per skill, and removes the folders of skills\n" +
			"it exported earlier that are now disabled, removed or no longer matched by the\n" +
			"target's --skills patterns. Only skills whose version changed are touched; each\n" +
			"folder is switched atomically, so an agent reading it sees the old version or\n" +
			"the new one, never a mix.\n\n" +
			"Each skill is reported as hot (only SKILL.md changed: the agent re-reads it),\n" +
			"cold (first install, files, modes or symlinks changed: restart the agent),\n" +
			"unchanged, removed, locally-modified (someone edited the folder since export\n" +
			"wrote it: left alone, see 'skillstore capture'), foreign (a folder export did\n" +
			"not create: left alone), linked (the folder is a symbolic link, as in a\n" +
			"dotfiles setup: left alone) or failed.\n\n" +
			"Exit codes: 0 every target written (skipped skills are reported, not errors),\n" +
			"1 a target or skill failed, 2 usage error, 3 store lock busy.",
		Flags:  []cli.Flag{newJSONFlag()},
		Action: runExport,
	}
}

func runExport(c *cli.Context) error {
	s, err := openStore(c)
	if err != nil {
		return err
	}
	targets, err := readTargets(c, s, c.Args().Slice())
	if err != nil {
		return err
	}
	if len(targets) == 0 {
		return withHint(errors.New("no targets to export to"), "add one with 'skillstore target add NAME DIR'")
	}
	e := getEnv(c)
	out, err := target.Export(c.Context, s, targets, targetOptions(c))
	if c.Bool("json") {
		if jerr := writeJSON(e.stdout, out); jerr != nil {
			return jerr
		}
	} else {
		printExports(e.stdout, out)
	}
	return err
}

// targetOptions are the logger and lock timeout every target command uses.
func targetOptions(c *cli.Context) target.Options {
	return target.Options{Logger: getEnv(c).log, LockTimeout: c.Duration("lock-timeout")}
}

// printExports prints one line per skill: target, skill, action, detail.
func printExports(w io.Writer, exports []target.Exported) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, te := range exports {
		if te.Error != "" && len(te.Results) == 0 {
			fmt.Fprintf(tw, "%s\t-\tfailed\t%s\n", te.Target, te.Error)
		}
		for _, r := range te.Results {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", te.Target, r.Skill, r.Action, exportDetail(r))
		}
		if !te.Atomic && len(te.Results) > 0 && te.Error == "" {
			fmt.Fprintf(tw, "%s\t-\tnote\tthis filesystem cannot exchange folders atomically; folders were replaced by two renames\n", te.Target)
		}
	}
	tw.Flush()
}

func exportDetail(r reload.Result) string {
	switch r.Action {
	case reload.ActionHot, reload.ActionCold, reload.ActionRemoved:
		if r.Action == reload.ActionCold && r.OldTree.IsZero() {
			return "installed: " + strings.Join(r.Paths, ", ")
		}
		return strings.Join(r.Paths, ", ")
	case reload.ActionLocallyModified:
		return fmt.Sprintf("left alone: edited in the target (%s); run 'skillstore capture %s'", strings.Join(r.Paths, ", "), r.Skill)
	case reload.ActionForeign:
		return "left alone: export did not create this folder; move it away to let export write the skill"
	case reload.ActionFailed:
		return r.Error
	case reload.ActionLinked:
		return "left alone: the skill folder is a symbolic link; skillstore neither writes through it nor replaces it"
	}
	return ""
}
