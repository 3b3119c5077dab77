package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

func init() { register(statusCommand(), captureCommand()) }

// captureActor is who records a captured local edit (the Actor trailer).
const captureActor = "local"

// mergeModeCapture marks a version recorded from a local edit in a target.
const mergeModeCapture = "capture"

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:     "status",
		Category: "targets",
		Usage:    "show skills edited in the target folders since export wrote them",
		Description: "Compares every skill folder export wrote into each target with what export\n" +
			"wrote, and lists the ones a person changed (modified, with the changed paths\n" +
			"and whether the change is hot or cold), deleted (missing), and the ones whose\n" +
			"published version is newer than the exported one (outdated: run export).\n" +
			"Capture modified skills with 'skillstore capture'.\n\n" +
			"Exit codes: 0 success (whether or not anything was edited), 1 error,\n" +
			"3 store lock busy.",
		Flags:  []cli.Flag{newJSONFlag()},
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
			"status') as a new version of the skill, with actor 'local' and the reason\n" +
			"given, so the next export and sync keep the edit instead of overwriting it.\n" +
			"Without SKILL arguments every edited skill is captured.\n\n" +
			"A skill whose published version also changed since export wrote it is not\n" +
			"captured: both sides changed, so it needs a three-way merge (sync does it).\n" +
			"An edited SKILL.md that no longer validates, or an edit the safety check\n" +
			"refuses, is not captured either.\n\n" +
			"Exit codes: 0 every edited skill captured (or none edited), 1 some skill\n" +
			"not captured (the output says why), 2 usage error, 3 store lock busy.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "why the skill was edited (recorded on the version)"},
			&cli.StringSliceFlag{Name: "target", Usage: "capture only from target `NAME` (repeatable)"},
			newJSONFlag(),
		},
		Action: runCapture,
	}
}

// targetStatus is one exported skill of one target, as status reports it.
type targetStatus struct {
	Target string `json:"target"`
	reload.SkillStatus
	// Outdated is set when the published version differs from the exported
	// one and the folder is clean: the next export updates it.
	Outdated bool `json:"outdated,omitempty"`
}

// collectStatus runs reload.Status on every target.
func collectStatus(ctx context.Context, s *store.Store, targets []targetRecord, lockTimeout time.Duration) ([]targetStatus, error) {
	heads := map[string]store.Hash{}
	err := s.View(ctx, func(r *store.Reader) error {
		infos, err := r.List(false)
		for _, info := range infos {
			heads[info.Name] = info.Tree
		}
		return err
	})
	if err != nil {
		return nil, storeErr(err)
	}
	var out []targetStatus
	for _, t := range targets {
		sts, err := reload.Status(ctx, t.Dir, lockTimeout)
		if err != nil {
			return nil, err
		}
		for _, st := range sts {
			ts := targetStatus{Target: t.Name, SkillStatus: st}
			if head, ok := heads[st.Skill]; ok && st.State == reload.StateClean && skillfs.ID(head) != st.Exported {
				ts.Outdated = true
			}
			out = append(out, ts)
		}
	}
	return out, nil
}

func runStatus(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("status takes no arguments")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	targets, err := readTargets(c.Context, s, nil)
	if err != nil {
		return err
	}
	sts, err := collectStatus(c.Context, s, targets, c.Duration("lock-timeout"))
	if err != nil {
		return err
	}
	e := getEnv(c)
	if c.Bool("json") {
		if sts == nil {
			sts = []targetStatus{}
		}
		return writeJSON(e.stdout, sts)
	}
	if len(targets) == 0 {
		fmt.Fprintln(e.stdout, "no targets; add one with 'skillstore target add NAME DIR'")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	shown := 0
	for _, st := range sts {
		switch {
		case st.State == reload.StateModified:
			fmt.Fprintf(tw, "%s\t%s\tmodified\t%s: %s\n", st.Target, st.Skill, st.Class, strings.Join(st.Paths, ", "))
		case st.State == reload.StateMissing:
			fmt.Fprintf(tw, "%s\t%s\tmissing\tdeleted from the target; the next export installs it again\n", st.Target, st.Skill)
		case st.Outdated:
			fmt.Fprintf(tw, "%s\t%s\toutdated\ta newer version is published; run 'skillstore export'\n", st.Target, st.Skill)
		default:
			continue
		}
		shown++
	}
	tw.Flush()
	if shown == 0 {
		fmt.Fprintf(e.stdout, "every exported skill is as export wrote it (%d skill folder(s) in %d target(s))\n", len(sts), len(targets))
	}
	return nil
}

// captureResult is what capture did with one edited skill folder.
type captureResult struct {
	Target  string   `json:"target"`
	Skill   string   `json:"skill"`
	Paths   []string `json:"paths"`
	Version string   `json:"version,omitempty"`
	// Outcome is "captured", "needs-merge", "unchanged" (the store already
	// holds the folder's tree) or "refused".
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`

	files []skillfs.File // what was read and stored
}

// Outcomes of capturing one edited folder.
const (
	captureCaptured   = "captured"
	captureUnchanged  = "unchanged"   // the store already holds the folder's tree
	captureNeedsMerge = "needs-merge" // the published version also changed
	captureRefused    = "refused"     // invalid, refused by the safety check, unreadable
)

// captureStoreActor is the store actor of captured versions. Open the store
// with it for captureEdits.
var captureStoreActor = store.Signature{Name: captureActor, Email: captureActor + "@skillstore"}

// captureEdits records every edited skill folder in targets (only skills
// named in only, if any) as a new version, and marks each captured folder as
// export's own again. Sync calls it before it exports, with s opened with
// captureStoreActor. The error is for what stops the whole capture; a skill
// that could not be captured is a result.
func captureEdits(ctx context.Context, s *store.Store, targets []targetRecord, only []string, reason string, lockTimeout time.Duration, log *slog.Logger) ([]captureResult, error) {
	sts, err := collectStatus(ctx, s, targets, lockTimeout)
	if err != nil {
		return nil, err
	}
	dirs := map[string]string{}
	for _, t := range targets {
		dirs[t.Name] = t.Dir
	}
	var results []captureResult
	for _, st := range sts {
		if st.State != reload.StateModified || (len(only) > 0 && !slices.Contains(only, st.Skill)) {
			continue
		}
		res := captureOne(ctx, s, dirs[st.Target], st, reason)
		if res.Outcome == captureCaptured || res.Outcome == captureUnchanged {
			// Adopt exactly what was stored: if the folder changed again
			// since, it stays modified.
			if err := reload.Adopt(ctx, dirs[st.Target], st.Skill, res.files, lockTimeout); err != nil {
				log.Debug("captured folder changed again; status will show it", "skill", st.Skill, "err", err)
			}
		}
		results = append(results, res)
	}
	return results, nil
}

func runCapture(c *cli.Context) error {
	want := c.Args().Slice()
	reason := c.String("reason")
	jsonOut := c.Bool("json")
	s, err := openStoreAs(c, &captureStoreActor)
	if err != nil {
		return err
	}
	targets, err := readTargets(c.Context, s, c.StringSlice("target"))
	if err != nil {
		return err
	}
	e := getEnv(c)
	results, err := captureEdits(c.Context, s, targets, want, reason, c.Duration("lock-timeout"), e.log)
	if err != nil {
		return err
	}
	if jsonOut {
		if results == nil {
			results = []captureResult{}
		}
		if err := writeJSON(e.stdout, results); err != nil {
			return err
		}
	}
	var notFound []string
	for _, name := range want {
		if !slices.ContainsFunc(results, func(r captureResult) bool { return r.Skill == name }) {
			notFound = append(notFound, name)
		}
	}
	failed := 0
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, r := range results {
		if r.Outcome != captureCaptured && r.Outcome != captureUnchanged {
			failed++
		}
		if jsonOut {
			continue
		}
		switch r.Outcome {
		case captureCaptured:
			fmt.Fprintf(tw, "%s\t%s\tcaptured as %s\t%s\n", r.Target, r.Skill, r.Version, strings.Join(r.Paths, ", "))
		case captureUnchanged:
			fmt.Fprintf(tw, "%s\t%s\talready stored as %s\n", r.Target, r.Skill, r.Version)
		default:
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Target, r.Skill, r.Outcome, r.Error)
		}
	}
	tw.Flush()
	if !jsonOut && len(results) == 0 && len(notFound) == 0 {
		fmt.Fprintln(e.stdout, "no local edits to capture")
	}
	if len(notFound) > 0 {
		return withHint(fmt.Errorf("no local edits of %s in any target", strings.Join(notFound, ", ")), "run 'skillstore status' to see the edited skills")
	}
	if failed > 0 {
		return withHint(fmt.Errorf("%d edited skill(s) not captured", failed),
			"a skill that needs a merge is integrated by 'skillstore sync'; fix a refused one in the target and capture again")
	}
	return nil
}

// captureOne records one edited folder as a new version, unless the
// published version moved since export wrote the folder.
func captureOne(ctx context.Context, s *store.Store, targetDir string, st targetStatus, reason string) captureResult {
	res := captureResult{Target: st.Target, Skill: st.Skill, Paths: st.Paths}
	dir := filepath.Join(targetDir, st.Skill)
	files, err := reload.ReadDir(dir)
	if err != nil {
		res.Outcome, res.Error = captureRefused, err.Error()
		return res
	}
	if reason == "" {
		reason = "local edit in target " + st.Target
	}
	res.files = files
	sfiles := files // reload.ReadDir gives sizes and blob ids
	err = s.Update(ctx, func(tx *store.Tx) error {
		head, err := tx.Head(st.Skill)
		if err != nil {
			return err
		}
		if tree, err := store.TreeHash(sfiles); err == nil && tree == head.Tree {
			res.Outcome, res.Version = captureUnchanged, head.Name()
			return nil
		}
		if skillfs.ID(head.Tree) != st.Exported {
			res.Outcome = captureNeedsMerge
			res.Error = fmt.Sprintf("%s changed in the target and in the store (now %s) since export wrote it", st.Skill, head.Name())
			return nil
		}
		if err := checkCaptured(dir, st.Skill, files); err != nil {
			return err
		}
		previous, err := tx.Files(head.Tree)
		if err != nil {
			return err
		}
		checked, err := safety.Check(st.Skill, sfiles, previous, safety.DefaultLimits)
		if err != nil {
			return err
		}
		if checked.Risk > safety.DefaultAllowedRisk {
			return &safety.RiskRefusedError{Skill: st.Skill, Risk: checked.Risk, Allowed: safety.DefaultAllowedRisk, Findings: checked.Findings}
		}
		tree, err := tx.WriteTree(sfiles)
		if err != nil {
			return err
		}
		v, err := tx.CommitVersion(st.Skill, tree, store.VersionInfo{
			Source: head.Source, Plugin: head.Plugin, PluginVersion: head.PluginVersion,
			MergeMode: mergeModeCapture, Reason: reason, Risk: checked.Risk, Findings: checked.Findings,
		})
		if err != nil {
			return err
		}
		res.Outcome, res.Version = captureCaptured, v.Name()
		return nil
	})
	if err != nil {
		res.Outcome, res.Error = captureRefused, storeErr(err).Error()
	}
	return res
}

// checkCaptured validates the edited SKILL.md the way add does.
func checkCaptured(dir, skill string, files []skillfs.File) error {
	i := slices.IndexFunc(files, func(f skillfs.File) bool { return f.Path == discover.SkillFileName })
	if i < 0 {
		return fmt.Errorf("%s has no %s", dir, discover.SkillFileName)
	}
	display := filepath.Join(dir, discover.SkillFileName)
	if _, diags := discover.ValidateFile(display, skill, files[i].Data, discover.Lenient); discover.HasErrors(diags) {
		var msgs []string
		for _, d := range diags {
			if d.Severity == discover.SeverityError {
				msgs = append(msgs, d.String())
			}
		}
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}
