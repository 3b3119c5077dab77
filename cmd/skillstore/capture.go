package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload/target"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/reload"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:     "status",
		Category: "targets",
		Usage:    "show skills edited in the target folders since export wrote them",
		Description: "Compares every skill folder export wrote into each target with what export\n" +
			"wrote, and lists the ones a person changed (modified, with the changed paths\n" +
			"and whether the change is hot or cold), deleted (missing), and the ones whose\n" +
			"published version is newer than the exported one (outdated: run export).\n" +
			"A skill folder that is a symbolic link (a dotfiles setup) is shown as linked:\n" +
			"export and capture leave it alone. An edit made while export replaced a\n" +
			"folder is shown as raced, with the folder under .skillstore that keeps it.\n" +
			"A skill the target would get whose folder there export did not create (and\n" +
			"which does not hold the published version) is shown as foreign, every time;\n" +
			"sync reports it only the first time.\n" +
			"Capture modified and raced skills with 'skillstore capture'.\n\n" +
			"Exit codes: 0 success (whether or not anything was edited), 1 error,\n" +
			"3 store lock busy.",
		Flags:  []cli.Flag{newJSONFlag(), verboseFlag()},
		Action: runStatus,
	}
}

func captureCommand() *cli.Command {
	return &cli.Command{
		Name:      "capture",
		Category:  "targets",
		Usage:     "record skills edited in the target folders as new versions",
		ArgsUsage: "[SKILL...]",
		Description: "Records each skill folder that a person edited in a target (see 'skillstore\n" +
			"status') as a new version of the skill, with git's author identity as the\n" +
			"actor ($GIT_AUTHOR_NAME/EMAIL, else user.name/email; 'local' when git knows\n" +
			"neither) and the reason given, so the next export and sync keep the edit instead of overwriting it.\n" +
			"Without SKILL arguments every edited skill is captured.\n\n" +
			"Every edit is recorded in one store transaction; a progress line is shown\n" +
			"on a terminal.\n\n" +
			"A skill whose published version also changed since export wrote it (after\n" +
			"a sync or 'pull --export') is merged: the edit, the version it started from\n" +
			"and the published version make a three-way candidate for review\n" +
			"('skillstore candidates'); the folder is left as it is until the candidate\n" +
			"is accepted or rejected, after which the next capture or sync lets export\n" +
			"replace it (integrated). An edit made while export replaced the folder is\n" +
			"kept under the target's .skillstore folder (status shows it as raced) and\n" +
			"captured the same way. An edited SKILL.md that no longer validates, or an\n" +
			"edit the safety check refuses, is not captured.\n\n" +
			"Exit codes: 0 every edited skill captured (or none edited), 1 some skill\n" +
			"not captured (the output says why), 2 usage error, 3 store lock busy,\n" +
			"4 edits were merged into candidates that wait for review.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "why the skill was edited (recorded on the version)"},
			&cli.StringSliceFlag{Name: "target", Usage: "capture only from target `NAME` (repeatable)"},
			newJSONFlag(), verboseFlag(),
			dryRunFlag("report what capture would record, writing nothing"),
		},
		Action: runCapture,
	}
}

func runStatus(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("status takes no arguments")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	targets, err := readTargets(c, s, nil)
	if err != nil {
		return err
	}
	sts, err := target.Status(c.Context, s, targets, targetOptions(c))
	var failed *target.StatusError
	if err != nil && !errors.As(err, &failed) {
		return err
	}
	// A target whose folders could not be compared is the error; the
	// others are shown first.
	e := getEnv(c)
	if c.Bool("json") {
		if sts == nil {
			sts = []target.SkillStatus{}
		}
		if werr := cliout.JSON(e.stdout, sts); werr != nil {
			return werr
		}
		return err
	}
	if len(targets) == 0 {
		cliout.Println(e.stdout, "no targets; add one with 'skillstore target add NAME DIR'")
		return nil
	}
	verbose := c.Bool("verbose")
	tw := cliout.NewTable(2)
	shown := 0
	for _, st := range sts {
		st.Skill = statusName(st)
		switch {
		case st.State == reload.StateModified:
			prefix := string(st.Class) + ": "
			tw.AddFit(func(budget int) string {
				return prefix + cliout.FileSummary(st.Paths, max(budget-len(prefix), -1), verbose)
			}, st.Target, st.Skill, "modified")
		case st.State == reload.StateMissing:
			tw.Add(st.Target, st.Skill, "missing", "deleted from the target; the next export installs it again")
		case st.State == reload.StateLinked:
			tw.Add(st.Target, st.Skill, "linked", "a symbolic link to "+st.Link+"; export and capture leave it alone")
		case st.State == reload.StateForeign && st.Link != "":
			tw.Add(st.Target, st.Skill, "foreign", "a symbolic link to "+st.Link+" that export did not create; 'skillstore export --replace-links' replaces it if it points at a copy skillstore manages")
		case st.State == reload.StateForeign:
			tw.Add(st.Target, st.Skill, "foreign", "a folder export did not create, unlike the published version; export leaves it alone: move it away to let export write the skill")
		case st.State == reload.StateConflict:
			tw.Add(st.Target, st.Skill, "conflict", st.Error)
		case st.State == reload.StateRaced:
			tw.Add(st.Target, st.Skill, "raced", "edited while export replaced it; the edit is kept in "+st.Dir+": run 'skillstore capture'")
		case st.State == reload.StateUnreadable:
			tw.Add(st.Target, st.Skill, "unreadable", st.Error+"; export and capture leave it alone: remove or fix that entry")
		case st.State == reload.StateIgnored:
			tw.Add(st.Target, st.Skill, "ignored", st.Error)
		case st.Outdated:
			tw.Add(st.Target, st.Skill, "outdated", "a newer version is published; run 'skillstore export'")
		default:
			continue
		}
		shown++
	}
	tw.Write(e.stdout, cliout.NewPainter(e.stdout), cliout.Width(e.stdout, verbose))
	if shown == 0 && failed == nil {
		cliout.Printf(e.stdout, "every exported skill is as export wrote it (%d skill folder(s) in %d target(s))\n", len(sts), len(targets))
	}
	return err
}

// runCapture is capture, and with --dry-run its dry run: the same code on
// a dry-run store, where capture records nothing in the store or the
// targets (store.DryRun; target.Capture leaves the folders alone).
func runCapture(c *cli.Context) error {
	want := c.Args().Slice()
	jsonOut, dry := c.Bool("json"), c.Bool("dry-run")
	s, err := openStoreForWrite(c)
	if err != nil {
		return err
	}
	if want, err = resolveCaptureArgs(c, s, want); err != nil {
		return err
	}
	targets, err := readTargets(c, s, c.StringSlice("target"))
	if err != nil {
		return err
	}
	e := getEnv(c)
	opts := target.CaptureOptions{Options: targetOptions(c), Only: want, Reason: c.String("reason")}
	progress := cliout.IsTerminal(e.stderr) && !jsonOut
	if progress {
		opts.Progress = func(done, total int) { fmt.Fprintf(cliout.Raw(e.stderr), "\r\x1b[Kcapturing %d/%d", done, total) }
	}
	results, err := target.Capture(c.Context, s, targets, opts)
	if progress {
		fmt.Fprint(cliout.Raw(e.stderr), "\r\x1b[K")
	}
	if err != nil {
		return err
	}
	if results == nil {
		results = []target.CaptureResult{}
	}
	for i := range results {
		if dry && results[i].Outcome == target.Candidate {
			results[i].Candidate = "" // a commit that was never written
		}
	}
	if jsonOut {
		if err := cliout.JSON(e.stdout, results); err != nil {
			return err
		}
	}
	var notFound []string
	for _, name := range want {
		if !slices.ContainsFunc(results, func(r target.CaptureResult) bool { return r.Skill == name }) {
			notFound = append(notFound, name)
		}
	}
	failed, review := 0, 0
	verbose := c.Bool("verbose")
	tw := cliout.NewTable(-1)
	for _, r := range results {
		switch {
		case r.InReview():
			review++
		case !r.OK():
			failed++
		}
		if jsonOut {
			continue
		}
		if r.Outcome == target.Captured {
			what, _, _ := strings.Cut(captureLine(r, dry), "\t")
			tw.AddFit(func(budget int) string { return cliout.FileSummary(r.Paths, budget, verbose) }, r.Target, r.Skill, what)
			continue
		}
		tw.Add(append([]string{r.Target, captureSkill(r)}, strings.Split(captureLine(r, dry), "\t")...)...)
	}
	tw.Write(e.stdout, cliout.NewPainter(e.stdout), cliout.Width(e.stdout, verbose))
	if !jsonOut && len(results) == 0 && len(notFound) == 0 {
		cliout.Println(e.stdout, "no local edits to capture")
	}
	noteDryRun(c)
	if len(notFound) > 0 {
		return withHint(fmt.Errorf("no local edits of %s in any target", strings.Join(notFound, ", ")), "run 'skillstore status' to see the edited skills")
	}
	if failed > 0 {
		return withHint(fmt.Errorf("%d edited skill(s) %s", failed, dryRunWord(c, "not captured", "would not be captured")),
			"a skill that needs a merge is merged once the pending candidate is accepted or rejected; fix a refused one in the target and capture again")
	}
	if review > 0 {
		if !jsonOut {
			cliout.Printf(e.stderr, "skillstore: %d edit(s) %s for review as candidates: run 'skillstore candidates list'\n", review, dryRunWord(c, "wait", "would wait"))
		}
		return silentExit(exitReview)
	}
	return nil
}

// captureSkill names the skill of a capture result; a whole target that
// was refused has none.
func captureSkill(r target.CaptureResult) string {
	if r.Skill == "" {
		return "-"
	}
	return r.Skill
}

// captureLine describes what capture did with one edit (would do, in a
// dry run), after its target and skill; a tab separates two columns, so
// the paths and the error in it are cliout.Quoted (quoteText).
func captureLine(r target.CaptureResult, dry bool) string {
	raced := ""
	if r.Raced {
		raced = " (an edit made while export replaced the folder)"
	}
	switch r.Outcome {
	case target.Captured:
		what := "captured as "
		if dry {
			what = "would capture as "
		}
		return fmt.Sprintf("%s%s%s\t%s", what, r.Version, raced, strings.Join(cliout.QuoteAll(r.Paths), ", "))
	case target.Unchanged:
		return "already stored as " + r.Version + raced
	case target.Integrated:
		return fmt.Sprintf("integrated\t%s already holds the edit%s; the next export replaces the folder with it", r.Version, raced)
	case target.Candidate, target.CandidatePending:
		merged := "clean"
		if n := len(r.Conflicts); n > 0 {
			merged = fmt.Sprintf("%d conflict(s): %s", n, strings.Join(cliout.QuoteAll(r.Conflicts), ", "))
		}
		what := "merged with " + r.Version + " into candidate " + shortID(r.Candidate)
		switch {
		case r.Outcome == target.CandidatePending:
			what = "candidate " + shortID(r.Candidate) + " made from this edit still waits"
		case dry:
			what = "would merge with " + r.Version + " into a candidate"
		}
		return fmt.Sprintf("%s\t%s%s (%s); review it with 'skillstore candidates show %s'", r.Outcome, what, raced, merged, r.Skill)
	}
	return fmt.Sprintf("%s\t%s", r.Outcome, cliout.Quote(r.Error))
}
