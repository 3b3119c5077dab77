package main

import (
	"errors"
	"io"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
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
			"dotfiles setup: left alone) or failed. A folder export did not create whose\n" +
			"files are exactly the version it would write is adopted (recorded as exported,\n" +
			"nothing written). With --replace-links, a symbolic link export did not create\n" +
			"that points at a copy skillstore manages (a folder another target's export\n" +
			"wrote, or one holding a version of the skill, as 'npx skills' links\n" +
			"~/.claude/skills/NAME to ~/.agents/skills/NAME) is replaced by the exported\n" +
			"folder and reported link-replaced; the folder it pointed at is left as it is.\n" +
			"A link put in place of a folder export wrote stays linked. File lists are\n" +
			"summarised to fit the terminal ('SKILL.md, scripts/run.sh and 10 more');\n" +
			"--verbose lists every file.\n\n" +
			"Exit codes: 0 every target written (skipped skills are reported, not errors),\n" +
			"1 a target or skill failed, 2 usage error, 3 store lock busy.",
		Flags: []cli.Flag{newJSONFlag(), verboseFlag(), dryRunFlag("report what export would do in each target, writing nothing"),
			&cli.BoolFlag{Name: "replace-links", Usage: "replace skill folders that are symbolic links to copies skillstore manages with the exported folders"}},
		Action: runExport,
	}
}

// runExport is export, and with --dry-run its plan: target.Export on a
// dry-run store writes nothing (see target.Plan).
func runExport(c *cli.Context) error {
	s, err := openStoreForWrite(c)
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
		if jerr := cliout.JSON(e.stdout, out); jerr != nil {
			return jerr
		}
	} else {
		printExports(c, e.stdout, out)
		noteDryRun(c)
	}
	return err
}

// targetOptions are the logger and lock timeout every target command uses.
func targetOptions(c *cli.Context) target.Options {
	return target.Options{Logger: getEnv(c).log, LockTimeout: c.Duration("lock-timeout"), ReplaceLinks: c.Bool("replace-links")}
}

// printExports prints one line per skill: target, skill, action, detail.
// File lists are summarised to fit the terminal (all with --verbose) and
// actions coloured on a terminal.
func printExports(c *cli.Context, w io.Writer, exports []target.Exported) {
	verbose := c.Bool("verbose")
	t := cliout.NewTable(2)
	for _, te := range exports {
		if te.Error != "" && len(te.Results) == 0 {
			t.Add(te.Target, "-", "failed", te.Error)
		}
		for _, r := range te.Results {
			r := r
			if te.Kind != "" && (r.Action == reload.ActionLocallyModified || r.Action == reload.ActionForeign) {
				t.Add(te.Target, r.Skill, string(r.Action), marketplaceLeftAlone(r))
				continue
			}
			t.AddFit(func(budget int) string { return exportDetail(r, budget, verbose) }, te.Target, r.Skill, string(r.Action))
		}
		if !te.Atomic && len(te.Results) > 0 && te.Error == "" {
			t.Add(te.Target, "-", "note", "this filesystem cannot exchange folders atomically; folders were replaced by two renames")
		}
		for _, w := range te.Warnings {
			t.Add(te.Target, "-", "warning", w)
		}
	}
	t.Write(w, cliout.NewPainter(w), cliout.Width(w, verbose))
}

// exportDetail says what export did with a skill, its file list fitted
// into budget columns (see fileSummary).
func exportDetail(r reload.Result, budget int, verbose bool) string {
	where := folderNote(r)
	if where != "" {
		if budget >= 0 {
			budget = max(budget-len(where)-1, 10)
		}
		return where + " " + exportAction(r, budget, verbose)
	}
	return exportAction(r, budget, verbose)
}

func exportAction(r reload.Result, budget int, verbose bool) string {
	files := func(prefixLen int) string {
		if budget >= 0 {
			budget = max(budget-prefixLen, 10)
		}
		return cliout.FileSummary(r.Paths, budget, verbose)
	}
	switch r.Action {
	case reload.ActionHot, reload.ActionCold, reload.ActionRemoved:
		if r.Action == reload.ActionCold && r.OldTree.IsZero() {
			return "installed: " + files(len("installed: "))
		}
		return files(0)
	case reload.ActionLocallyModified:
		tail := "); run 'skillstore capture " + r.Skill + "'"
		return "left alone: edited in the target (" + files(len("left alone: edited in the target (")+len(tail)) + tail
	case reload.ActionForeign:
		if r.Link != "" {
			return "left alone: a symbolic link to " + r.Link + " that export did not create; 'skillstore export --replace-links' replaces it if it points at a copy skillstore manages"
		}
		return "left alone: export did not create this folder; move it away to let export write the skill"
	case reload.ActionFailed, reload.ActionConflict:
		return r.Error
	case reload.ActionLinked:
		return "left alone: the skill folder is a symbolic link; skillstore neither writes through it nor replaces it"
	case reload.ActionAdopted:
		return "the folder already held this version; export manages it from now on"
	case reload.ActionLinkReplaced:
		return "the symbolic link to " + r.Link + " was replaced by the exported folder (" + r.Link + " is left as it is)"
	}
	return ""
}

// verboseFlag is --verbose on the commands that summarise file lists.
func verboseFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list every file, and do not fit lines to the terminal"}
}
