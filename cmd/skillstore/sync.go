package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/store"
)

func init() { register(syncCommand()) }

// SyncHook runs around a sync without this file knowing about it. A hook
// takes the store lock itself (sync holds it only while syncing plugins).
type SyncHook struct {
	// Name appears in error messages.
	Name string
	// BeforeSync runs before any plugin is fetched: the place to record
	// local edits made in target folders as versions, so the merge sees them.
	BeforeSync func(c *cli.Context, s *store.Store) error
	// AfterSync runs once sync has written its results: the place to
	// export the published skills into targets.
	AfterSync func(c *cli.Context, s *store.Store, rep *store.SyncReport) error
}

// syncHooks are registered from other files' init functions with addSyncHook.
var syncHooks []SyncHook

// addSyncHook registers a hook that every sync runs (see SyncHook).
func addSyncHook(h SyncHook) { syncHooks = append(syncHooks, h) }

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
			"reported, never deleted. Sync waits up to --lock-timeout for the store lock.\n\n" +
			"With targets (see 'skillstore target'), sync first records skills edited in\n" +
			"the target folders as versions (like 'skillstore capture'), so an update never\n" +
			"overwrites them, and at the end exports what it published (like 'skillstore export').\n\n" +
			"Output: nothing when nothing changed; one line per change otherwise; --json for a\n" +
			"full report. Progress is shown only on a terminal.\n\n" +
			"Exit codes: 0 done, nothing waits for review; 1 a plugin or skill failed (the\n" +
			"others were still synced); 2 usage error; 3 store lock busy (another skillstore\n" +
			"command holds it); 4 done, candidates wait for review.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "review", Usage: "turn fast-forwards into candidates for this run"},
			&cli.BoolFlag{Name: "skill-aware", Usage: "merge Markdown in three-way updates with the skill-aware rules (see merge-file --help); the candidate lists each resolution"},
			newJSONFlag(),
		},
		Action: runSync,
	}
}

func runSync(c *cli.Context) error {
	e := getEnv(c)
	s, err := openStore(c)
	if err != nil {
		return err
	}
	for _, h := range syncHooks {
		if h.BeforeSync != nil {
			if err := h.BeforeSync(c, s); err != nil {
				return storeErr(fmt.Errorf("before sync (%s): %w", h.Name, err))
			}
		}
	}
	opts := store.SyncOptions{Plugins: c.Args().Slice(), Review: c.Bool("review"), SkillAware: c.Bool("skill-aware")}
	progress := isTerminal(e.stderr) && !c.Bool("json")
	if progress {
		opts.Progress = func(plugin string, done, total int) {
			fmt.Fprintf(e.stderr, "\r\x1b[Ksyncing %s (%d/%d)", plugin, done+1, total)
		}
	}
	rep, err := s.Sync(c.Context, opts)
	if progress {
		fmt.Fprint(e.stderr, "\r\x1b[K")
	}
	if err != nil {
		return pluginErr(err)
	}
	changed := false
	if c.Bool("json") {
		if err := writeJSON(e.stdout, rep); err != nil {
			return err
		}
	} else {
		changed = writeSyncReport(e.stdout, e.stderr, rep)
	}
	var hookErrs []error
	for _, h := range syncHooks {
		if h.AfterSync != nil {
			if err := h.AfterSync(c, s, rep); err != nil {
				hookErrs = append(hookErrs, fmt.Errorf("after sync (%s): %w", h.Name, err))
			}
		}
	}
	switch {
	case rep.Failed() || len(hookErrs) > 0:
		for _, err := range hookErrs {
			fmt.Fprintf(e.stderr, "skillstore: error: %v\n", err)
		}
		return silentExit(exitError)
	case rep.CandidatesWaiting > 0:
		if changed {
			fmt.Fprintf(e.stderr, "skillstore: %d candidate(s) wait for review: run 'skillstore candidates list'\n", rep.CandidatesWaiting)
		}
		return silentExit(exitReview)
	}
	return nil
}

// writeSyncReport prints one line per change and per error, nothing when
// nothing changed. It reports whether it printed a change.
func writeSyncReport(w, errw io.Writer, rep *store.SyncReport) bool {
	changed := false
	for _, p := range rep.Plugins {
		for _, sk := range p.Skills {
			if sk.Error != "" {
				fmt.Fprintf(errw, "skillstore: error: %s/%s: %s\n", p.Plugin, sk.Skill, sk.Error)
				continue
			}
			if !sk.Changed() {
				continue
			}
			changed = true
			fmt.Fprintf(w, "%s/%s: %s\n", p.Plugin, sk.Skill, syncLine(sk))
		}
		if p.Error != "" && !strings.HasSuffix(p.Error, "failed: "+failedSkills(p)) {
			fmt.Fprintf(errw, "skillstore: error: plugin %s: %s\n", p.Plugin, p.Error)
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
func syncLine(sk store.SkillReport) string {
	var b strings.Builder
	switch sk.Classification {
	case store.ClassNew:
		fmt.Fprintf(&b, "new skill, v%d", sk.NewVersion)
	case store.ClassRemoved:
		b.WriteString("removed upstream (kept in the store)")
	case store.ClassUnchanged, store.ClassPending:
		b.WriteString(sk.Classification)
	default:
		b.WriteString(sk.Classification)
		switch {
		case sk.NewVersion > 0:
			fmt.Fprintf(&b, ", v%d -> v%d", sk.OldVersion, sk.NewVersion)
		case sk.Candidate != "":
			fmt.Fprintf(&b, ", candidate %s on v%d", sk.Candidate[:12], sk.OldVersion)
			if n := len(sk.Conflicts); n > 0 {
				fmt.Fprintf(&b, " with %d conflict(s): %s", n, strings.Join(sk.Conflicts, ", "))
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
