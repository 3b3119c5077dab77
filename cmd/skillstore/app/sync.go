package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/pluginsync"
	"github.com/skillstore/skillstore/store/safety"
)

// Intake is what plugin add and sync take in of what they fetch.
type Intake struct {
	// Strict makes each plugin all or nothing: when a part of it would be
	// left out, nothing of it is written and it fails.
	Strict bool
	// AllowRisk is the highest safety risk taken in; a skill above it is
	// left out.
	AllowRisk safety.RiskLevel
}

// DefaultIntake is the intake of a command without the flags (plugin
// resume syncs too).
var DefaultIntake = Intake{AllowRisk: safety.DefaultAllowedRisk}

// SyncOptions are sync's: the plugins to sync (all when none) and how.
type SyncOptions struct {
	Global
	Output
	Plugins []string
	// Review turns fast-forwards into candidates for this run.
	Review bool
	// SkillAware merges Markdown in three-way updates with the
	// skill-aware rules.
	SkillAware bool
	Intake     Intake
	// DryRun reports what sync would do, as Check does, writing nothing.
	DryRun bool
}

// SyncRun is what one run of sync's pipeline did: the edits captured from
// the targets, the plugins' sync, and the export. On a dry-run store it is
// what the run would do (check): the same code made every decision, and
// the writes went to memory (store.DryRun, target.Pending). Its JSON is
// sync --json: the store's sync report, plus the captures and exports.
type SyncRun struct {
	*pluginsync.Report
	Captured []target.CaptureResult `json:"captured"`
	Exported []target.Exported      `json:"exported"`
	// exportErr is the export's error: the failed targets and skills,
	// reported after the rest.
	exportErr error
}

// Sync is the pipeline of a cron sync: record the edits people made in
// target folders (so the merge sees them), bring the plugins' updates in,
// then export what was published, printing what happened. With DryRun it
// is Check: the same pipeline on a dry-run store.
func Sync(ctx context.Context, opts SyncOptions) error {
	if opts.DryRun {
		return Check(ctx, opts)
	}
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	run, err := runPipeline(ctx, s, opts)
	if !errors.Is(err, context.Canceled) {
		opts.recordSync(s, newSyncRecord(time.Now(), run, err))
	}
	if run == nil {
		return err
	}
	changed := false
	if opts.JSON {
		if err == nil {
			if jerr := cliout.JSON(opts.Stdout, run); jerr != nil {
				return jerr
			}
		}
	} else {
		writeCaptures(opts.Stdout, opts.Stderr, run.Captured, opts.Verbose)
		if run.Report != nil {
			changed = writeSyncReport(opts.Stdout, opts.Stderr, run.Report, opts.Verbose)
			printSyncWarnings(opts.Stderr, run.Report, opts.Verbose)
		}
		printExportRows(opts.Stdout, exportsToShow(s, run.Exported), opts.Verbose)
	}
	if err != nil {
		return err
	}
	if run.exportErr != nil {
		cliout.Printf(opts.Stderr, "skillstore: error: after sync (export): %v\n", run.exportErr)
	}
	end := run.outcome()
	if errors.Is(end, ErrReview) && (changed || run.inReview() > 0 || run.failed()) {
		cliout.Printf(opts.Stderr, "skillstore: %s for review: run 'skillstore candidates list'\n", Waiting(run.CandidatesWaiting+run.inReview()))
	}
	return end
}

// runPipeline is sync from end to end on s: capture the edits people
// made in the target folders (so the merge sees them), sync the plugins
// named (all when none), then export what was published. On a dry-run
// store each step runs its usual code and writes nothing — that is all
// 'check' is, so check cannot say anything sync would not do. It returns
// the run as far as it got, and the error that stopped it.
func runPipeline(ctx context.Context, s *store.Store, opts SyncOptions) (*SyncRun, error) {
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return nil, fmt.Errorf("before sync: %w", err)
	}
	topts := opts.TargetOptions(false)
	if s.IsDryRun() {
		topts.Pending = target.NewPending()
	}
	run := &SyncRun{Captured: []target.CaptureResult{}, Exported: []target.Exported{}}
	if len(targets) > 0 {
		captured, err := target.Capture(ctx, s, targets, target.CaptureOptions{Options: topts})
		if err != nil {
			return run, fmt.Errorf("before sync (capture): %w", err)
		}
		run.Captured = append(run.Captured, captured...)
	}
	if run.Report, err = syncPlugins(ctx, s, opts); err != nil {
		return run, err
	}
	if len(targets) > 0 {
		exported, err := target.Export(ctx, s, targets, topts)
		run.Exported = append(run.Exported, exported...)
		run.exportErr = err
	}
	if opts.SyncDone != nil {
		opts.SyncDone(run)
	}
	return run, nil
}

// inReview counts the captured edits that wait for review as candidates.
func (r *SyncRun) inReview() int {
	n := 0
	for _, c := range r.Captured {
		if c.InReview() {
			n++
		}
	}
	return n
}

// notCaptured counts the folders (or whole targets) capture refused.
func (r *SyncRun) notCaptured() int {
	n := 0
	for _, c := range r.Captured {
		if c.Outcome == target.Refused {
			n++
		}
	}
	return n
}

// outcome is how sync's run ends, and so check's: ErrReview whenever
// candidates (or merged target edits) wait for review, whatever else
// failed (a cron job acting on exit 4 must learn of them; the failures
// are printed all the same, and --json carries both); else ErrReported
// when a plugin, skill, capture or export failed (the rest still went
// on); else nil.
func (r *SyncRun) outcome() error {
	switch {
	case r.CandidatesWaiting > 0 || r.inReview() > 0:
		return ErrReview
	case r.failed():
		return ErrReported
	}
	return nil
}

// failed reports whether a plugin, skill, capture or export failed.
func (r *SyncRun) failed() bool {
	return r.Failed() || r.exportErr != nil || r.notCaptured() > 0
}

// syncPlugins runs the store's sync, with a progress line on a terminal.
func syncPlugins(ctx context.Context, s *store.Store, opts SyncOptions) (*pluginsync.Report, error) {
	sopts := pluginsync.Options{Plugins: opts.Plugins, Review: opts.Review, SkillAware: opts.SkillAware, Strict: opts.Intake.Strict, AllowRisk: opts.Intake.AllowRisk, RiskCap: RiskCap()}
	progress := cliout.IsTerminal(opts.Stderr) && !opts.JSON
	raw := cliout.Raw(opts.Stderr) // the control sequences are ours; names are escaped
	if progress {
		sopts.Progress = func(plugin string, done, total int) {
			fmt.Fprintf(raw, "\r\x1b[Ksyncing %s (%d/%d)", cliout.Quote(plugin), done+1, total)
		}
		sopts.FetchProgress = func(url string, done, total int) {
			fmt.Fprintf(raw, "\r\x1b[Kfetching: %d/%d done (last %s)", done, total, cliout.Quote(url))
		}
	}
	rep, err := pluginsync.Run(ctx, s, sopts)
	if progress {
		fmt.Fprint(raw, "\r\x1b[K")
	}
	return rep, err
}

// writeCaptures prints what the capture before sync did with each edited
// folder: captured and merged edits on w, refusals on errw.
func writeCaptures(w, errw io.Writer, results []target.CaptureResult, verbose bool) {
	for _, r := range results {
		switch {
		case r.Outcome == target.Unchanged:
		case r.Outcome == target.Captured:
			cliout.Printf(w, "captured %s from target %s (%s)\n", r.Version, r.Target, cliout.FileSummary(r.Paths, -1, verbose))
		case r.OK() || r.InReview():
			cliout.Reportf(w, "    ", "%s/%s: %s\n", r.Target, r.Skill, strings.ReplaceAll(captureLine(r, false), "\t", ": "))
		case r.Outcome == target.Refused && r.Skill == "":
			cliout.Printf(errw, "skillstore: error: before sync (capture): target %s: %s\n", r.Target, r.Error)
		case r.Outcome == target.Refused:
			cliout.Printf(errw, "skillstore: error: before sync (capture): %s in target %s not captured: %s\n", r.Skill, r.Target, r.Error)
		default:
			cliout.Printf(errw, "skillstore: note: %s in target %s not captured (%s): %s\n", r.Skill, r.Target, r.Outcome, r.Error)
		}
	}
}

// exportsToShow keeps, of an export's results, the ones a person should
// hear of: changes, and what export left alone the first time it does
// (see dropRepeats).
func exportsToShow(s *store.Store, out []target.Exported) []target.Exported {
	shown := make([]target.Exported, len(out))
	for i, te := range out {
		te.Results = slices.DeleteFunc(slices.Clone(te.Results), func(r reload.Result) bool { return r.Action == reload.ActionUnchanged })
		shown[i] = te
	}
	dropRepeats(s, shown)
	return shown
}

// writeSyncReport prints one line per change and per error, nothing when
// nothing changed. It reports whether it printed a change.
func writeSyncReport(w, errw io.Writer, rep *pluginsync.Report, verbose bool) bool {
	changed := false
	var failed []failure // printed after the changes, alike ones once
	paint := cliout.NewPainter(w)
	for _, p := range rep.Plugins {
		if p.OldRelease != "" {
			changed = true
			cliout.Printf(w, "%s: release %s -> %s\n", p.Plugin, p.OldRelease, p.Release)
		}
		for _, sk := range p.Skills {
			if sk.Error != "" {
				cliout.Printf(errw, "skillstore: error: %s: %s\n", syncName(p.Plugin, sk), sk.Error)
				continue
			}
			if !sk.Changed() || sk.Classification == pluginsync.ClassLeftOut {
				continue
			}
			changed = true
			line := cliout.Quote(syncLine(sk, verbose))
			if word, _, _ := strings.Cut(line, ","); cliout.HasColor(word) {
				line = paint.Status(word) + strings.TrimPrefix(line, word)
			}
			// Written raw: the colour is ours, the text escaped above.
			fmt.Fprintln(cliout.Raw(w), cliout.WrapLine(cliout.Quote(syncName(p.Plugin, sk))+": "+line, cliout.ReportWidthOf(w), "    "))
			writeFindings(w, sk.Findings, "    ")
		}
		for _, d := range p.Dependencies {
			if d.Unmet != "" {
				cliout.Printf(errw, "skillstore: warning: plugin %s needs %s: %s\n", p.Plugin, d.Dependency, d.Unmet)
			}
		}
		changed = writePartsReport(w, errw, p, verbose) || changed
		printLeftOut(errw, p)
		if p.Error != "" && !listsFailedSkills(p.Err) {
			failed = append(failed, textFailure(p.Plugin, "plugin "+p.Plugin+": ", p.Error))
		}
	}
	printFailures(errw, "plugins", failed, verbose, func(err error) { cliout.Printf(errw, "skillstore: error: %v\n", err) })
	return printMarketplaceNews(w, rep.MarketplaceNews) || changed
}

// printMarketplaceNews says which plugins each marketplace lists since
// the previous sync that the store has not added, and how to add one. It
// reports whether it printed any.
func printMarketplaceNews(w io.Writer, news []pluginsync.MarketplaceNews) bool {
	for _, n := range news {
		cliout.Reportf(w, "    ", "marketplace %s lists %s not added: %s; add one with 'skillstore plugin add %s#NAME'\n",
			n.Marketplace, Plural(len(n.Plugins), "new plugin"), NameSummary(n.Plugins, maxListedNames), n.Marketplace)
	}
	return len(news) > 0
}

// listsFailedSkills reports whether a plugin's error only lists the skills
// that failed (each reported with its own error), so it is not printed
// again.
func listsFailedSkills(err error) bool {
	var failed *pluginsync.SkillsFailedError
	return errors.As(err, &failed)
}

// syncLine describes one skill's change.
func syncLine(sk pluginsync.SkillReport, verbose bool) string {
	var b strings.Builder
	switch sk.Classification {
	case pluginsync.ClassNew:
		fmt.Fprintf(&b, "new skill, v%d", sk.NewVersion)
	case pluginsync.ClassRemoved:
		b.WriteString("removed upstream (kept in the store)")
	case pluginsync.ClassUnchanged, pluginsync.ClassPending:
		b.WriteString(string(sk.Classification))
	default:
		b.WriteString(string(sk.Classification))
		switch {
		case sk.NewVersion > 0:
			fmt.Fprintf(&b, ", v%d -> v%d", sk.OldVersion, sk.NewVersion)
		case sk.Candidate != "":
			fmt.Fprintf(&b, ", candidate %s on v%d", sk.Candidate[:12], sk.OldVersion)
			if n := len(sk.Conflicts); n > 0 {
				fmt.Fprintf(&b, " with %s: %s", Plural(n, "conflict"), cliout.FileSummary(sk.Conflicts, -1, verbose))
			} else {
				b.WriteString(", clean")
			}
			if n := len(sk.MergeResolved); n > 0 {
				fmt.Fprintf(&b, ", %d resolved by skill-aware rules: %s", n, strings.Join(sk.MergeResolved, ", "))
			}
		}
	}
	if sk.Superseded != "" {
		fmt.Fprintf(&b, " (supersedes candidate %s)", sk.Superseded[:12])
	}
	return b.String()
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
