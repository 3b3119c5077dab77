package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

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
		Description: "Fetches every enabled, unpaused plugin (or those named) and runs sync's own\n" +
			"classification in a transaction that is never committed: nothing is written\n" +
			"to the store (refs, state, objects, caches) or to any target. Prints, per\n" +
			"plugin and skill, what sync would do:\n" +
			"  publish          a fast-forward would be published (v1 -> v2)\n" +
			"  candidate        an update would wait for review (three-way clean, or a\n" +
			"                   fast-forward under --review, the plugin's policy or a risk)\n" +
			"  conflict         a three-way merge would leave conflicts for review\n" +
			"  new              a new upstream skill would be added\n" +
			"  removed          the upstream no longer has the skill (it is kept)\n" +
			"  already-applied  the published files already match; the base would advance\n" +
			"and the edits made in targets that sync would capture first. 'skillstore sync\n" +
			"--dry-run' is the same.\n\n" +
			"Exit codes: 0 nothing pending; 1 a plugin failed; 2 usage error; 3 store lock\n" +
			"busy; 4 sync would change something, or candidates wait for review.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "review", Usage: "as sync --review: fast-forwards would become candidates"},
			&cli.BoolFlag{Name: "skill-aware", Usage: "as sync --skill-aware"},
			newJSONFlag(), verboseFlag(),
		},
		Action: func(c *cli.Context) error { return runCheck(c, c.Args().Slice()) },
	}
}

// checkSkill is one skill's line of a check.
type checkSkill struct {
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

type checkReport struct {
	DryRun            bool          `json:"dry_run"`
	Pending           bool          `json:"pending"`
	Plugins           []checkPlugin `json:"plugins"`
	LocalEdits        []localEdit   `json:"local_edits"`
	CandidatesWaiting int           `json:"candidates_waiting"`
}

// checkAction names what sync would do with a skill, in the words of
// check's help.
func checkAction(sk store.SkillReport) string {
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

// runCheck is 'check' and 'sync --dry-run': sync on a dry-run store, and
// the target edits capture would record first (read with Status, which
// writes nothing).
func runCheck(c *cli.Context, plugins []string) error {
	e := getEnv(c)
	s, err := openStore(c)
	if err != nil {
		return err
	}
	dry := s.DryRun()
	targets, err := readTargets(c, dry, nil)
	if err != nil {
		return err
	}
	rep := checkReport{DryRun: true, Plugins: []checkPlugin{}, LocalEdits: []localEdit{}}
	targetsFailed := false
	if len(targets) > 0 {
		sts, err := target.Status(c.Context, dry, targets, targetOptions(c))
		var failed *target.StatusError
		if err != nil && !errors.As(err, &failed) {
			return fmt.Errorf("check (targets): %w", err)
		}
		if failed != nil {
			// As sync does: the target is named, the rest is checked.
			targetsFailed = true
			printf(e.stderr, "skillstore: error: check (targets): %v\n", failed)
		}
		for _, st := range sts {
			if st.State == reload.StateModified {
				rep.LocalEdits = append(rep.LocalEdits, localEdit{Target: st.Target, Skill: st.Skill, Paths: st.Paths})
			}
		}
	}
	srep, err := syncPlugins(c, dry, plugins)
	if err != nil {
		return err
	}
	rep.CandidatesWaiting = srep.CandidatesWaiting
	rep.Pending = len(rep.LocalEdits) > 0 || srep.CandidatesWaiting > 0
	for _, p := range srep.Plugins {
		cp := checkPlugin{Plugin: p.Plugin, Skipped: p.Skipped, Error: p.Error, Skills: []checkSkill{}}
		for _, sk := range withParts(p) {
			if sk.Classification == store.ClassUnchanged && sk.Error == "" && sk.Superseded == "" {
				continue
			}
			cs := checkSkill{Action: checkAction(sk), SkillReport: sk}
			cs.Candidate = "" // a commit that was never written
			cp.Skills = append(cp.Skills, cs)
			if sk.Changed() {
				rep.Pending = true
			}
		}
		rep.Plugins = append(rep.Plugins, cp)
	}
	if c.Bool("json") {
		if err := writeJSON(e.stdout, rep); err != nil {
			return err
		}
	} else {
		writeCheck(e.stdout, e.stderr, rep, c.Bool("verbose"))
		for _, p := range srep.Plugins {
			printLeftOut(e.stderr, p) // as sync names them
		}
	}
	switch {
	case srep.Failed() || targetsFailed:
		return silentExit(exitError)
	case rep.Pending:
		return silentExit(exitReview)
	}
	return nil
}

func writeCheck(w, errw io.Writer, rep checkReport, verbose bool) {
	p := newPainter(w)
	t := newTable(1)
	for _, e := range rep.LocalEdits {
		e := e
		t.addFit(func(budget int) string {
			return "edited in target " + e.Target + " (" + fileSummary(e.Paths, budget, verbose) + "); sync would capture it first"
		}, e.Skill, "capture")
	}
	for _, cp := range rep.Plugins {
		if cp.Error != "" {
			printf(errw, "skillstore: error: plugin %s: %s\n", cp.Plugin, cp.Error)
		}
		if cp.Skipped != "" {
			if verbose {
				t.add(cp.Plugin, "skipped", cp.Skipped)
			}
			continue
		}
		if len(cp.Skills) == 0 && cp.Error == "" {
			t.add(cp.Plugin, "up-to-date", "")
			continue
		}
		for _, sk := range cp.Skills {
			if sk.Error != "" {
				printf(errw, "skillstore: error: %s/%s: %s\n", cp.Plugin, sk.Skill, sk.Error)
				continue
			}
			t.add(cp.Plugin+"/"+sk.Skill, sk.Action, checkDetail(sk))
		}
	}
	t.write(w, p, outputWidth(w, verbose))
	switch {
	case !rep.Pending:
		printLine(w, "nothing to do")
	case rep.CandidatesWaiting > 0:
		printf(errw, "skillstore: %d candidate(s) would wait for review: run 'skillstore candidates list' after sync\n", rep.CandidatesWaiting)
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
