package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

func init() {
	register(exportCommand())
	addSyncHook(SyncHook{Name: "targets", BeforeSync: captureBeforeSync, AfterSync: exportAfterSync})
}

// captureBeforeSync records the local edits made in targets as versions
// (actor local) before sync merges upstream updates, so the merge sees them.
// A skill edited in a target whose published version also moved is left in
// place and reported: export will not overwrite it.
func captureBeforeSync(c *cli.Context, _ *store.Store) error {
	s, err := openStoreAs(c, &captureStoreActor)
	if err != nil {
		return err
	}
	targets, err := readTargets(c.Context, s, nil)
	if err != nil || len(targets) == 0 {
		return err
	}
	e := getEnv(c)
	results, err := captureEdits(c.Context, s, targets, nil, "", c.Duration("lock-timeout"), e.log)
	if err != nil {
		return err
	}
	for _, r := range results {
		switch r.Outcome {
		case captureCaptured:
			if !c.Bool("json") {
				fmt.Fprintf(e.stdout, "captured %s from target %s (%s)\n", r.Version, r.Target, strings.Join(r.Paths, ", "))
			}
		case captureUnchanged:
		default:
			fmt.Fprintf(e.stderr, "skillstore: note: %s in target %s not captured (%s): %s\n", r.Skill, r.Target, r.Outcome, r.Error)
		}
	}
	return nil
}

// exportAfterSync exports the published skills into every target once sync
// has written its results, printing only what changed.
func exportAfterSync(c *cli.Context, s *store.Store, _ *store.SyncReport) error {
	targets, err := readTargets(c.Context, s, nil)
	if err != nil || len(targets) == 0 {
		return err
	}
	e := getEnv(c)
	out, err := exportTargets(c.Context, s, targets, e.log, c.Duration("lock-timeout"))
	if !c.Bool("json") {
		for i := range out {
			out[i].Results = slices.DeleteFunc(out[i].Results, func(r reload.Result) bool { return r.Action == reload.ActionUnchanged })
		}
		printExports(e.stdout, out)
	}
	return err
}

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
			"not create: left alone) or failed.\n\n" +
			"Exit codes: 0 every target written (skipped skills are reported, not errors),\n" +
			"1 a target or skill failed, 2 usage error, 3 store lock busy.",
		Flags:  []cli.Flag{newJSONFlag()},
		Action: runExport,
	}
}

// targetExport is one target's part of export's output.
type targetExport struct {
	Target  string          `json:"target"`
	Dir     string          `json:"dir"`
	Atomic  bool            `json:"atomic"`
	Results []reload.Result `json:"results"`
	Error   string          `json:"error,omitempty"`
}

func runExport(c *cli.Context) error {
	args := c.Args().Slice()
	s, err := openStore(c)
	if err != nil {
		return err
	}
	targets, err := readTargets(c.Context, s, args)
	if err != nil {
		return err
	}
	if len(targets) == 0 {
		return withHint(errors.New("no targets to export to"), "add one with 'skillstore target add NAME DIR'")
	}
	e := getEnv(c)
	out, err := exportTargets(c.Context, s, targets, e.log, c.Duration("lock-timeout"))
	if c.Bool("json") {
		if jerr := writeJSON(e.stdout, out); jerr != nil {
			return jerr
		}
	} else {
		printExports(e.stdout, out)
	}
	return err
}

// exportTargets exports the active published skills into each target. A
// failing target is reported in its entry and the others go on; the error
// says which failed. Sync calls it after capturing local edits.
func exportTargets(ctx context.Context, s *store.Store, targets []targetRecord, log *slog.Logger, lockTimeout time.Duration) ([]targetExport, error) {
	published, err := publishedSkills(ctx, s)
	if err != nil {
		return nil, storeErr(err)
	}
	var failed []string
	out := make([]targetExport, 0, len(targets))
	for _, t := range targets {
		var skills []reload.Skill
		for _, p := range published {
			if t.wants(p.Name) {
				skills = append(skills, p)
			}
		}
		rep, err := reload.Export(ctx, t.Dir, skills, reload.ExportOptions{Logger: log, LockTimeout: lockTimeout})
		te := targetExport{Target: t.Name, Dir: t.Dir, Results: []reload.Result{}}
		if rep != nil {
			te.Atomic, te.Results = rep.Atomic, rep.Results
		}
		if err != nil {
			te.Error = err.Error()
			failed = append(failed, fmt.Sprintf("%s: %v", t.Name, err))
		}
		out = append(out, te)
	}
	if len(failed) > 0 {
		return out, fmt.Errorf("export failed for %s", strings.Join(failed, "; "))
	}
	return out, nil
}

// publishedSkills lists the latest version of every active skill, with its
// tree ID and a loader for its files, so export reads from the store only
// the skills whose version changed.
func publishedSkills(ctx context.Context, s *store.Store) ([]reload.Skill, error) {
	var out []reload.Skill
	err := s.View(ctx, func(r *store.Reader) error {
		infos, err := r.List(false)
		if err != nil {
			return err
		}
		for _, info := range infos {
			if info.Status != store.StatusActive {
				continue
			}
			tree := info.Tree
			out = append(out, reload.Skill{
				Name: info.Name,
				Tree: skillfs.ID(tree),
				Load: func() ([]skillfs.File, error) {
					var files []skillfs.File
					err := s.View(ctx, func(r *store.Reader) error {
						var err error
						files, err = r.LoadFiles(tree)
						return err
					})
					return files, err
				},
			})
		}
		return nil
	})
	return out, err
}

// printExports prints one line per skill: target, skill, action, detail.
func printExports(w io.Writer, exports []targetExport) {
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
	}
	return ""
}
