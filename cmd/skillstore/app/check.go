package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// checkSkill is one skill's line of a check: the name sync prints, what
// sync would do, and sync's report of it.
type checkSkill struct {
	Name   string `json:"name"`
	Action string `json:"action"`
	pluginsync.SkillReport
}

// checkPlugin is one plugin's part of a check; Err is why its sync would
// fail.
type checkPlugin struct {
	Plugin  string
	Skipped string
	Err     error
	Skills  []checkSkill
	// Release is the newer release a source following tags would move
	// to, from OldRelease ("" when it stays).
	Release, OldRelease string
}

// MarshalJSON writes the plugin as check --json shows it: the error as
// its message.
func (p checkPlugin) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Plugin     string       `json:"plugin"`
		Skipped    string       `json:"skipped,omitempty"`
		Error      string       `json:"error,omitempty"`
		Skills     []checkSkill `json:"skills"`
		Release    string       `json:"release_available,omitempty"`
		OldRelease string       `json:"release,omitempty"`
	}{p.Plugin, p.Skipped, ErrorText(p.Err), p.Skills, p.Release, p.OldRelease})
}

// ErrorText is err's message, "" for none: how a report's error shows in
// its JSON.
func ErrorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
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
	// MarketplaceNews: plugins marketplaces list since the last sync.
	MarketplaceNews []pluginsync.MarketplaceNews `json:"marketplace_news,omitempty"`
}

// checkAction names what sync would do with a skill, in the words of
// check's help.
func checkAction(sk pluginsync.SkillReport) string {
	if sk.Error != "" {
		return "failed"
	}
	switch sk.Classification {
	case pluginsync.ClassNew:
		return "new"
	case pluginsync.ClassRemoved:
		return "removed"
	case pluginsync.ClassAlreadyApplied:
		return "already-applied"
	case pluginsync.ClassUnchanged, pluginsync.ClassPending, pluginsync.ClassLeftOut:
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

// Check is 'check' and 'sync --dry-run': sync's pipeline on a dry-run
// store, printed as what sync would do, ending as sync would.
func Check(ctx context.Context, opts SyncOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	dry := s.DryRun()
	run, err := runPipeline(ctx, dry, opts)
	if err != nil {
		return err
	}
	rep := newCheckReport(run)
	if opts.JSON {
		if err := cliout.JSON(opts.Stdout, rep); err != nil {
			return err
		}
	} else {
		writeCheck(opts.Stdout, opts.Stderr, rep, exportsToShow(dry, run.Exported), run.failed(), opts.Verbose)
		if run.Report != nil {
			for _, p := range run.Plugins {
				printLeftOut(opts.Stderr, p) // as sync names them
			}
		}
	}
	return run.outcome()
}

// newCheckReport is check's report of a dry run: the skills sync would
// report (every one but those unchanged), named as sync names them.
func newCheckReport(run *SyncRun) checkReport {
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
	if run.Report != nil {
		rep.MarketplaceNews = run.Report.MarketplaceNews
	}
	rep.Pending = len(rep.LocalEdits) > 0 || run.CandidatesWaiting > 0 || exportsChange(run.Exported)
	for _, p := range run.Plugins {
		cp := checkPlugin{Plugin: p.Plugin, Skipped: p.Skipped, Err: p.Err, Skills: []checkSkill{}}
		if p.OldRelease != "" {
			cp.Release, cp.OldRelease = p.Release, p.OldRelease
			rep.Pending = true
		}
		for _, sk := range withParts(p) {
			if sk.Classification == pluginsync.ClassUnchanged && sk.Error == "" && sk.Superseded == "" {
				continue
			}
			cs := checkSkill{Name: store.QualifiedName(p.Plugin, sk.Skill), Action: checkAction(sk), SkillReport: sk}
			if store.IsPluginParts(sk.Skill) {
				cs.Name = sk.Skill
			}
			if sk.Classification != pluginsync.ClassPending {
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
func writeCheck(w, errw io.Writer, rep checkReport, exports []target.Exported, failed, verbose bool) {
	p := cliout.NewPainter(w)
	t := cliout.NewTable(1)
	var pluginFailures []failure // printed once the rows are, alike ones once
	for _, r := range rep.Captured {
		addCaptureRow(t, errw, r, verbose)
	}
	for _, cp := range rep.Plugins {
		// As sync: a plugin's error that only lists its failed skills is
		// not printed again; a failure of its parts is the plugin's error.
		listsSkills := listsFailedSkills(cp.Err)
		if cp.Err != nil && !listsSkills {
			pluginFailures = append(pluginFailures, textFailure(cp.Plugin, "plugin "+cp.Plugin+": ", cp.Err.Error()))
		}
		if cp.Skipped != "" {
			if verbose {
				t.Add(cp.Plugin, "skipped", cp.Skipped)
			}
			continue
		}
		if cp.Release != "" {
			t.Add(cp.Plugin, "release", fmt.Sprintf("%s available (at %s)", cp.Release, cp.OldRelease))
		}
		if len(cp.Skills) == 0 && cp.Err == nil && cp.Release == "" {
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
	printFailures(errw, "plugins", pluginFailures, verbose, func(err error) { cliout.Printf(errw, "skillstore: error: %v\n", err) })
	printExportRows(w, exports, verbose)
	printMarketplaceNews(w, rep.MarketplaceNews)
	switch {
	case !rep.Pending && !failed:
		cliout.Println(w, "nothing to do")
	case rep.CandidatesWaiting > 0:
		cliout.Printf(errw, "skillstore: %s would wait for review: run 'skillstore candidates list' after sync\n", Plural(rep.CandidatesWaiting, "candidate"))
	}
	NoteDryRun(w, true, false) // check is sync --dry-run
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
			detail += fmt.Sprintf(" with %s: %s", Plural(n, "conflict"), strings.Join(r.Conflicts, ", "))
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
		return fmt.Sprintf("%s on v%d with %s: %s", sk.Classification, sk.OldVersion, Plural(len(sk.Conflicts), "conflict"), strings.Join(sk.Conflicts, ", "))
	case "candidate":
		detail := fmt.Sprintf("%s on v%d, clean", sk.Classification, sk.OldVersion)
		if sk.Risk != "" && sk.Risk != "none" {
			detail += ", risk " + sk.Risk
		}
		return detail + ": would wait for review"
	case string(pluginsync.ClassPending):
		return "a candidate for this update already waits for review"
	case string(pluginsync.ClassLeftOut):
		return "would be left out (named below)"
	}
	if sk.Superseded != "" {
		return "would supersede candidate " + sk.Superseded[:min(12, len(sk.Superseded))]
	}
	return ""
}
