package main

import (
	"fmt"

	"github.com/skillstore/skillstore/store/pluginsync"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// syncRun is what one run of sync's pipeline did: the edits captured from
// the targets, the plugins' sync, and the export. On a dry-run store it is
// what the run would do (check): the same code made every decision, and
// the writes went to memory (store.DryRun, target.Pending). Its JSON is
// sync --json: the store's sync report, plus the captures and exports.
type syncRun struct {
	*pluginsync.Report
	Captured []target.CaptureResult `json:"captured"`
	Exported []target.Exported      `json:"exported"`
	// exportErr is the export's error: the failed targets and skills,
	// reported after the rest.
	exportErr error
}

// runSyncPipeline is sync from end to end on s: capture the edits people
// made in the target folders (so the merge sees them), sync the plugins
// named (all when none), then export what was published. On a dry-run
// store each step runs its usual code and writes nothing — that is all
// 'check' is, so check cannot say anything sync would not do. It returns
// the run as far as it got, and the error that stopped it.
func runSyncPipeline(c *cli.Context, s *store.Store, plugins []string) (*syncRun, error) {
	targets, err := readTargets(c, s, nil)
	if err != nil {
		return nil, fmt.Errorf("before sync: %w", err)
	}
	topts := targetOptions(c)
	if s.IsDryRun() {
		topts.Pending = target.NewPending()
	}
	run := &syncRun{Captured: []target.CaptureResult{}, Exported: []target.Exported{}}
	if len(targets) > 0 {
		captured, err := target.Capture(c.Context, s, targets, target.CaptureOptions{Options: topts})
		if err != nil {
			return run, fmt.Errorf("before sync (capture): %w", err)
		}
		run.Captured = append(run.Captured, captured...)
	}
	if run.Report, err = syncPlugins(c, s, plugins); err != nil {
		return run, err
	}
	if len(targets) > 0 {
		exported, err := target.Export(c.Context, s, targets, topts)
		run.Exported = append(run.Exported, exported...)
		run.exportErr = err
	}
	if e := getEnv(c); e.syncDone != nil {
		e.syncDone(run)
	}
	return run, nil
}

// inReview counts the captured edits that wait for review as candidates.
func (r *syncRun) inReview() int {
	n := 0
	for _, c := range r.Captured {
		if c.InReview() {
			n++
		}
	}
	return n
}

// notCaptured counts the folders (or whole targets) capture refused.
func (r *syncRun) notCaptured() int {
	n := 0
	for _, c := range r.Captured {
		if c.Outcome == target.Refused {
			n++
		}
	}
	return n
}

// exitCode is sync's exit code for the run, and so check's: 1 when a
// plugin, skill, capture or export failed (the rest still went on), 4
// when candidates (or merged target edits) wait for review, else 0.
func (r *syncRun) exitCode() int {
	switch {
	case r.Failed() || r.exportErr != nil || r.notCaptured() > 0:
		return exitError
	case r.CandidatesWaiting > 0 || r.inReview() > 0:
		return exitReview
	}
	return 0
}

// exitWith ends a command that printed its report with code.
func exitWith(code int) error {
	if code == 0 {
		return nil
	}
	return silentExit(code)
}

// syncName is the name sync and check print for a skill of plugin's
// report: its store name, "PLUGIN:SKILL" (Claude Code's convention), or,
// for the plugin's parts, the unit's name marked as such.
func syncName(plugin string, sk pluginsync.SkillReport) string {
	if store.IsPluginParts(sk.Skill) {
		return partsLabel(sk.Skill)
	}
	return store.QualifiedName(plugin, sk.Skill)
}
