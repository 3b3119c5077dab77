package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Category:  "plugins",
		Usage:     "show what sync would do, writing nothing",
		ArgsUsage: "[PLUGIN...]",
		Description: "Runs sync's own pipeline on a dry run: capture of the skills edited in the\n" +
			"targets, fetch and classification of every enabled, unpaused plugin (or those\n" +
			"named), export. Every step makes its decisions with sync's code and keeps what\n" +
			"it would write in memory, so each later step sees it as sync would; nothing is\n" +
			"written to the store (refs, state, objects, caches) or to any target. Prints\n" +
			"under the names sync prints (PLUGIN:SKILL), per skill, what sync would do:\n" +
			"  capture          an edit made in a target would be recorded first (or merged\n" +
			"                   into a candidate, when the published version also moved)\n" +
			"  publish          a fast-forward would be published (v1 -> v2)\n" +
			"  candidate        an update would wait for review (three-way clean, or a\n" +
			"                   fast-forward under --review, the plugin's policy or a risk)\n" +
			"  conflict         a three-way merge would leave conflicts for review\n" +
			"  new              a new upstream skill would be added\n" +
			"  removed          the upstream no longer has the skill (it is kept)\n" +
			"  already-applied  the published files already match; the base would advance\n" +
			"then what export would write into each target. 'skillstore sync --dry-run' is\n" +
			"the same. --json says whether anything is pending (\"pending\").\n\n" +
			"Exit codes: the ones the sync that follows would give: 0 nothing would wait\n" +
			"for review; 1 a plugin, skill, capture or export would fail; 2 usage error;\n" +
			"3 store lock busy; 4 candidates would wait for review.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "review", Usage: "as sync --review: fast-forwards would become candidates"},
			&cli.BoolFlag{Name: "skill-aware", Usage: "as sync --skill-aware"},
			newJSONFlag(), verboseFlag(),
		}, intakeFlags()...),
		Action: func(c *cli.Context) error { return runCheck(c, c.Args().Slice()) },
	}
}

// checkSkill is one skill's line of a check: the name sync prints, what
// sync would do, and sync's report of it.
type checkSkill struct {
	Name   string `json:"name"`
	Action string `json:"action"`
	store.SkillReport
}

type checkPlugin struct {
	Plugin  string       `json:"plugin"`
	Skipped string       `json:"skipped,omitempty"`
	Error   string       `json:"error,omitempty"`
	Skills  []checkSkill `json:"skills"`
}

type localEdit struct {
	Target string   `json:"target"`
	Skill  string   `json:"skill"`
	Paths  []string `json:"paths"`
}

// checkReport is check --json: what sync would do, in sync's words.
type checkReport struct {
	DryRun            bool          `json:"dry_run"`
	Pending           bool          `json:"pending"`
	Plugins           []checkPlugin `json:"plugins"`
	LocalEdits        []localEdit   `json:"local_edits"`
	CandidatesWaiting int           `json:"candidates_waiting"`
	// Captured and Exported are what the capture before sync and the
	// export after it would do, as sync --json reports them (candidate
	// commits left out: they were never written).
	Captured []target.CaptureResult `json:"captured"`
	Exported []target.Exported      `json:"exported"`
}

// checkAction names what sync would do with a skill, in the words of
// check's help.
func checkAction(sk store.SkillReport) string {
	if sk.Error != "" {
		return "failed"
	}
	switch sk.Classification {
	case store.ClassNew:
		return "new"
	case store.ClassRemoved:
		return "removed"
	case store.ClassAlreadyApplied:
		return "already-applied"
	case store.ClassUnchanged, store.ClassPending, store.ClassLeftOut:
		return string(sk.Classification)
	}
	switch {
	case sk.NewVersion > 0:
		return "publish"
	case len(sk.Conflicts) > 0:
		return "conflict"
	}
	return "candidate"
}

// runCheck is 'check' and 'sync --dry-run': sync's pipeline on a dry-run
// store, printed as what sync would do, with the exit code sync would
// give.
func runCheck(c *cli.Context, plugins []string) error {
	e := getEnv(c)
	s, err := openStore(c)
	if err != nil {
		return err
	}
	dry := s.DryRun()
	run, err := runSyncPipeline(c, dry, plugins)
	if err != nil {
		return err
	}
	rep := newCheckReport(dry, run)
	if c.Bool("json") {
		if err := cliout.JSON(e.stdout, rep); err != nil {
			return err
		}
	} else {
		writeCheck(c, rep, exportsToShow(dry, run.Exported), run.exitCode() == exitError)
		if run.SyncReport != nil {
			for _, p := range run.Plugins {
				printLeftOut(e.stderr, p) // as sync names them
			}
		}
	}
	return exitWith(run.exitCode())
}

// newCheckReport is check's report of a dry run: the skills sync would
// report (every one but those unchanged), named as sync names them.
func newCheckReport(dry *store.Store, run *syncRun) checkReport {
	rep := checkReport{DryRun: true, Plugins: []checkPlugin{}, LocalEdits: []localEdit{},
		CandidatesWaiting: run.CandidatesWaiting, Captured: []target.CaptureResult{}, Exported: run.Exported}
	for _, r := range run.Captured {
		if r.Outcome == target.Candidate {
			r.Candidate = "" // a commit that was never written
		}
		rep.Captured = append(rep.Captured, r)
		if r.Skill != "" && r.Outcome != target.Unchanged {
			rep.LocalEdits = append(rep.LocalEdits, localEdit{Target: r.Target, Skill: r.Skill, Paths: r.Paths})
		}
	}
	rep.Pending = len(rep.LocalEdits) > 0 || run.CandidatesWaiting > 0 || exportsChange(run.Exported)
	for _, p := range run.Plugins {
		cp := checkPlugin{Plugin: p.Plugin, Skipped: p.Skipped, Error: p.Error, Skills: []checkSkill{}}
		for _, sk := range withParts(p) {
			if sk.Classification == store.ClassUnchanged && sk.Error == "" && sk.Superseded == "" {
				continue
			}
			cs := checkSkill{Name: store.QualifiedName(p.Plugin, sk.Skill), Action: checkAction(sk), SkillReport: sk}
			if store.IsPluginParts(sk.Skill) {
				cs.Name = sk.Skill
			}
			if sk.Classification != store.ClassPending {
				cs.Candidate = "" // a commit that was never written
			}
			cp.Skills = append(cp.Skills, cs)
			if sk.Changed() {
				rep.Pending = true
			}
		}
		rep.Plugins = append(rep.Plugins, cp)
	}
	return rep
}

// exportsChange reports whether an export would change a target folder.
func exportsChange(out []target.Exported) bool {
	for _, te := range out {
		for _, r := range te.Results {
			if r.Action == reload.ActionHot || r.Action == reload.ActionCold || r.Action == reload.ActionRemoved {
				return true
			}
		}
	}
	return false
}

// writeCheck prints a check: a row per skill (and per target edit) sync
// would report, then the export's lines as sync prints them.
func writeCheck(c *cli.Context, rep checkReport, exports []target.Exported, failed bool) {
	e, verbose := getEnv(c), c.Bool("verbose")
	w, errw := e.stdout, e.stderr
	p := cliout.NewPainter(w)
	t := cliout.NewTable(1)
	for _, r := range rep.Captured {
		addCaptureRow(t, errw, r, verbose)
	}
	for _, cp := range rep.Plugins {
		// As sync: a plugin's error that only lists its failed skills is
		// not printed again; a failure of its parts is the plugin's error.
		listsSkills := strings.HasSuffix(cp.Error, "failed: "+checkFailedSkills(cp))
		if cp.Error != "" && !listsSkills {
			cliout.Printf(errw, "skillstore: error: plugin %s: %s\n", cp.Plugin, cp.Error)
		}
		if cp.Skipped != "" {
			if verbose {
				t.Add(cp.Plugin, "skipped", cp.Skipped)
			}
			continue
		}
		if len(cp.Skills) == 0 && cp.Error == "" {
			t.Add(cp.Plugin, "up-to-date", "")
			continue
		}
		for _, sk := range cp.Skills {
			if sk.Error != "" {
				if !store.IsPluginParts(sk.Skill) || listsSkills {
					cliout.Printf(errw, "skillstore: error: %s: %s\n", syncName(cp.Plugin, sk.SkillReport), sk.Error)
				}
				continue
			}
			t.Add(syncName(cp.Plugin, sk.SkillReport), sk.Action, checkDetail(sk))
		}
	}
	t.Write(w, p, cliout.Width(w, verbose))
	printExports(c, w, exports)
	switch {
	case !rep.Pending && !failed:
		cliout.Println(w, "nothing to do")
	case rep.CandidatesWaiting > 0:
		cliout.Printf(errw, "skillstore: %d candidate(s) would wait for review: run 'skillstore candidates list' after sync\n", rep.CandidatesWaiting)
	}
}

// checkFailedSkills is failedSkills for a check's plugin.
func checkFailedSkills(cp checkPlugin) string {
	var names []string
	for _, sk := range cp.Skills {
		if sk.Error != "" && !store.IsPluginParts(sk.Skill) {
			names = append(names, sk.Skill)
		}
	}
	return strings.Join(names, ", ")
}

// addCaptureRow adds what the capture before sync would do with one
// edited folder: a row, or (a refusal) a line on stderr as sync prints it.
func addCaptureRow(t *cliout.Table, errw io.Writer, r target.CaptureResult, verbose bool) {
	switch {
	case r.Outcome == target.Unchanged:
	case r.Outcome == target.Refused && r.Skill == "":
		cliout.Printf(errw, "skillstore: error: before sync (capture): target %s: %s\n", r.Target, r.Error)
	case r.Outcome == target.Refused:
		cliout.Printf(errw, "skillstore: error: before sync (capture): %s in target %s not captured: %s\n", r.Skill, r.Target, r.Error)
	case r.Outcome == target.Captured:
		t.AddFit(func(budget int) string {
			return "edited in target " + r.Target + " (" + cliout.FileSummary(r.Paths, budget, verbose) + "); sync would capture it first as " + r.Version
		}, r.Skill, "capture")
	case r.InReview():
		detail := "edited in target " + r.Target + " while " + r.Version + " was published: sync would merge it into a candidate for review"
		if n := len(r.Conflicts); n > 0 {
			detail += fmt.Sprintf(" with %d conflict(s): %s", n, strings.Join(r.Conflicts, ", "))
		}
		t.Add(r.Skill, "capture", detail)
	case r.Outcome == target.Integrated:
		t.Add(r.Skill, "capture", "edited in target "+r.Target+"; "+r.Version+" already holds the edit: export would replace the folder")
	default:
		t.Add(r.Skill, "capture", fmt.Sprintf("edited in target %s; not captured (%s): %s", r.Target, r.Outcome, r.Error))
	}
}

func checkDetail(sk checkSkill) string {
	switch sk.Action {
	case "new":
		return fmt.Sprintf("would be added as v%d", max(sk.NewVersion, 1))
	case "removed":
		return "no longer upstream; kept in the store"
	case "publish":
		return fmt.Sprintf("%s, v%d -> v%d", sk.Classification, sk.OldVersion, sk.NewVersion)
	case "already-applied":
		return fmt.Sprintf("same files as upstream; the base would advance (v%d -> v%d)", sk.OldVersion, sk.NewVersion)
	case "conflict":
		return fmt.Sprintf("%s on v%d with %d conflict(s): %s", sk.Classification, sk.OldVersion, len(sk.Conflicts), strings.Join(sk.Conflicts, ", "))
	case "candidate":
		detail := fmt.Sprintf("%s on v%d, clean", sk.Classification, sk.OldVersion)
		if sk.Risk != "" && sk.Risk != "none" {
			detail += ", risk " + sk.Risk
		}
		return detail + ": would wait for review"
	case string(store.ClassPending):
		return "a candidate for this update already waits for review"
	case string(store.ClassLeftOut):
		return "would be left out (named below)"
	}
	if sk.Superseded != "" {
		return "would supersede candidate " + sk.Superseded[:min(12, len(sk.Superseded))]
	}
	return ""
}
