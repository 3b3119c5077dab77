package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/store"
)

func syncCommand() *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Category:  "plugins",
		Usage:     "bring upstream plugin updates in (safe to run from cron)",
		ArgsUsage: "[PLUGIN...]",
		Description: "For each enabled, unpaused plugin (or those named): fetch its source, snapshot\n" +
			"each skill's upstream tree (refs/upstream/<plugin>/<skill>), and classify it against\n" +
			"the published version with the merge-base (the last accepted upstream):\n" +
			"  unchanged        nothing to do\n" +
			"  already-applied  the published files already match upstream; the base advances\n" +
			"  fast-forward     no local edits: the update is published (a candidate with\n" +
			"                   --review, the plugin's review policy, or a high-risk finding)\n" +
			"  three-way        both changed: the merge becomes a candidate branch\n" +
			"                   (refs/heads/candidates/<skill>) for 'skillstore candidates'\n" +
			"A newer upstream supersedes a pending candidate. Skills removed upstream are\n" +
			"reported, never deleted. Sync waits up to --lock-timeout for the store lock.\n" +
			"A plugin's other files (manifest, hooks, commands, agents, MCP/LSP config...)\n" +
			"are synced the same way as the unit PLUGIN:_plugin; hook and server changes are\n" +
			"risk findings, and every change to them is cold (README: Plugin parts).\n\n" +
			"Git plugins are fetched before the store lock is taken, up to 16 at once, each\n" +
			"within --fetch-timeout (a global flag: connecting and listing refs, then every\n" +
			"silence of the server); one that fails is reported and the others are synced.\n\n" +
			"With targets (see 'skillstore target'), sync first records skills edited in\n" +
			"the target folders as versions (like 'skillstore capture'), so an update never\n" +
			"overwrites them, and at the end exports what it published (like 'skillstore export').\n" +
			"An edit whose published version moved meanwhile becomes a three-way candidate.\n" +
			"A skill folder capture cannot read (a FIFO or socket in it, a file in its place)\n" +
			"or a target whose bookkeeping folder is refused is named on stderr and left\n" +
			"alone; the rest of sync goes on, and it exits 1.\n\n" +
			"Output: nothing when nothing changed; one line per change otherwise; --json for a\n" +
			"full report. Progress is shown only on a terminal. A skill export leaves alone\n" +
			"(a foreign folder, one edited in a target) is reported by the first sync that\n" +
			"meets it, not by every one. File lists are summarised; --verbose lists them all.\n\n" +
			"A part that cannot be taken in is left out, not the plugin: a file a store never\n" +
			"holds (a symlink out of its folder, a FIFO, a file over 2 MiB) is left out of its\n" +
			"skill, and a skill that fails validation or is rated above --allow-risk (default\n" +
			"high) is left out, or held at its published version. Each is named on stderr\n" +
			"with what takes it in, by the first sync that meets it for that upstream content;\n" +
			"a later sync takes it in once fixed upstream. 'plugin trust PLUGIN:SKILL' accepts\n" +
			"a risky skill's findings. --strict makes each plugin all or nothing.\n\n" +
			"Exit codes: 0 done, nothing waits for review; 1 a plugin or skill failed, or a part\n" +
			"was left out (the others were still synced); 2 usage error; 3 store lock busy\n" +
			"(another skillstore command holds it); 4 done, candidates (or merged target edits)\n" +
			"wait for review.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "review", Usage: "turn fast-forwards into candidates for this run"},
			&cli.BoolFlag{Name: "skill-aware", Usage: "merge Markdown in three-way updates with the skill-aware rules (see merge-file --help); the candidate lists each resolution"},
			newJSONFlag(), verboseFlag(), dryRunFlag("report what sync would do, as 'skillstore check' does, writing nothing"),
		}, intakeFlags()...),
		Action: runSync,
	}
}

// runSync is the pipeline of a cron sync: record the edits people made in
// target folders (so the merge sees them), bring the plugins' updates in,
// then export what was published.
func runSync(c *cli.Context) error {
	return syncPipeline(c, c.Args().Slice())
}

// syncPipeline runs capture, sync of the plugins named (all when none)
// and export, printing what happened; `sync` and `plugin resume` use it.
// With --dry-run it is check: the same pipeline on a dry-run store.
func syncPipeline(c *cli.Context, plugins []string) error {
	if c.Bool("dry-run") {
		return runCheck(c, plugins)
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	run, err := runSyncPipeline(c, s, plugins)
	if run == nil {
		return err
	}
	e := getEnv(c)
	changed := false
	if c.Bool("json") {
		if err == nil {
			if jerr := cliout.JSON(e.stdout, run); jerr != nil {
				return jerr
			}
		}
	} else {
		writeCaptures(c, run.Captured)
		if run.SyncReport != nil {
			changed = writeSyncReport(e.stdout, e.stderr, run.SyncReport, c.Bool("verbose"))
			printSyncWarnings(e.stderr, run.SyncReport)
		}
		printExports(c, e.stdout, exportsToShow(s, run.Exported))
	}
	if err != nil {
		return err
	}
	if run.exportErr != nil {
		cliout.Printf(e.stderr, "skillstore: error: after sync (export): %v\n", run.exportErr)
	}
	code := run.exitCode()
	if code == exitReview && (changed || run.inReview() > 0) {
		cliout.Printf(e.stderr, "skillstore: %d candidate(s) wait for review: run 'skillstore candidates list'\n", run.CandidatesWaiting+run.inReview())
	}
	return exitWith(code)
}

// syncPlugins runs the store's sync, with a progress line on a terminal.
func syncPlugins(c *cli.Context, s *store.Store, plugins []string) (*store.SyncReport, error) {
	e := getEnv(c)
	strict, allow, err := intakeOptions(c)
	if err != nil {
		return nil, err
	}
	opts := store.SyncOptions{Plugins: plugins, Review: c.Bool("review"), SkillAware: c.Bool("skill-aware"), Strict: strict, AllowRisk: allow}
	progress := cliout.IsTerminal(e.stderr) && !c.Bool("json")
	raw := cliout.Raw(e.stderr) // the control sequences are ours; names are escaped
	if progress {
		opts.Progress = func(plugin string, done, total int) {
			fmt.Fprintf(raw, "\r\x1b[Ksyncing %s (%d/%d)", cliout.Quote(plugin), done+1, total)
		}
		opts.FetchProgress = func(url string, done, total int) {
			fmt.Fprintf(raw, "\r\x1b[Kfetching: %d/%d done (last %s)", done, total, cliout.Quote(url))
		}
	}
	rep, err := s.Sync(c.Context, opts)
	if progress {
		fmt.Fprint(raw, "\r\x1b[K")
	}
	return rep, err
}

// writeCaptures prints what the capture before sync did with each edited
// folder: captured and merged edits on stdout, refusals on stderr.
func writeCaptures(c *cli.Context, results []target.CaptureResult) {
	e := getEnv(c)
	for _, r := range results {
		switch {
		case r.Outcome == target.Unchanged:
		case r.Outcome == target.Captured:
			cliout.Printf(e.stdout, "captured %s from target %s (%s)\n", r.Version, r.Target, cliout.FileSummary(r.Paths, -1, c.Bool("verbose")))
		case r.OK() || r.InReview():
			cliout.Printf(e.stdout, "%s/%s: %s\n", r.Target, r.Skill, strings.ReplaceAll(captureLine(r, false), "\t", ": "))
		case r.Outcome == target.Refused && r.Skill == "":
			cliout.Printf(e.stderr, "skillstore: error: before sync (capture): target %s: %s\n", r.Target, r.Error)
		case r.Outcome == target.Refused:
			cliout.Printf(e.stderr, "skillstore: error: before sync (capture): %s in target %s not captured: %s\n", r.Skill, r.Target, r.Error)
		default:
			cliout.Printf(e.stderr, "skillstore: note: %s in target %s not captured (%s): %s\n", r.Skill, r.Target, r.Outcome, r.Error)
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
func writeSyncReport(w, errw io.Writer, rep *store.SyncReport, verbose bool) bool {
	changed := false
	paint := cliout.NewPainter(w)
	for _, p := range rep.Plugins {
		for _, sk := range p.Skills {
			if sk.Error != "" {
				cliout.Printf(errw, "skillstore: error: %s: %s\n", syncName(p.Plugin, sk), sk.Error)
				continue
			}
			if !sk.Changed() || sk.Classification == store.ClassLeftOut {
				continue
			}
			changed = true
			line := cliout.Quote(syncLine(sk, verbose))
			if word, _, _ := strings.Cut(line, ","); cliout.HasColor(word) {
				line = paint.Status(word) + strings.TrimPrefix(line, word)
			}
			// Written raw: the colour is ours, the text escaped above.
			fmt.Fprintf(cliout.Raw(w), "%s: %s\n", cliout.Quote(syncName(p.Plugin, sk)), line)
		}
		changed = writePartsReport(w, errw, p, verbose) || changed
		printLeftOut(errw, p)
		if p.Error != "" && !strings.HasSuffix(p.Error, "failed: "+failedSkills(p)) {
			cliout.Printf(errw, "skillstore: error: plugin %s: %s\n", p.Plugin, p.Error)
		}
	}
	return changed
}

func failedSkills(p store.PluginReport) string {
	var names []string
	for _, sk := range p.Skills {
		if sk.Error != "" {
			names = append(names, sk.Skill)
		}
	}
	return strings.Join(names, ", ")
}

// syncLine describes one skill's change.
func syncLine(sk store.SkillReport, verbose bool) string {
	var b strings.Builder
	switch sk.Classification {
	case store.ClassNew:
		fmt.Fprintf(&b, "new skill, v%d", sk.NewVersion)
	case store.ClassRemoved:
		b.WriteString("removed upstream (kept in the store)")
	case store.ClassUnchanged, store.ClassPending:
		b.WriteString(string(sk.Classification))
	default:
		b.WriteString(string(sk.Classification))
		switch {
		case sk.NewVersion > 0:
			fmt.Fprintf(&b, ", v%d -> v%d", sk.OldVersion, sk.NewVersion)
		case sk.Candidate != "":
			fmt.Fprintf(&b, ", candidate %s on v%d", sk.Candidate[:12], sk.OldVersion)
			if n := len(sk.Conflicts); n > 0 {
				fmt.Fprintf(&b, " with %d conflict(s): %s", n, cliout.FileSummary(sk.Conflicts, -1, verbose))
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
