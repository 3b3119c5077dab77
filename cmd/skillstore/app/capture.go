package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// CaptureOptions are capture's.
type CaptureOptions struct {
	Global
	Output
	// Skills limits capture to those skills (every edited one when none).
	Skills []string
	// Targets limits capture to those targets (all when none).
	Targets []string
	// Reason is why the skills were edited, recorded on the versions.
	Reason string
	// DryRun reports what capture would record, writing nothing.
	DryRun bool
}

// Capture records the skills edited in the targets as new versions, and
// in a dry run reports what it would: the same code on a dry-run store,
// where capture records nothing in the store or the targets
// (store.DryRun; target.Capture leaves the folders alone).
func Capture(ctx context.Context, opts CaptureOptions) error {
	jsonOut, dry := opts.JSON, opts.DryRun
	s, err := opts.OpenStoreFor(ctx, dry)
	if err != nil {
		return err
	}
	want, err := resolveCaptureArgs(ctx, s, opts.Skills)
	if err != nil {
		return err
	}
	targets, err := target.List(ctx, s, opts.Targets)
	if err != nil {
		return err
	}
	copts := target.CaptureOptions{Options: opts.TargetOptions(false), Only: want, Reason: opts.Reason}
	progress := cliout.IsTerminal(opts.Stderr) && !jsonOut
	if progress {
		copts.Progress = func(done, total int) {
			fmt.Fprintf(cliout.Raw(opts.Stderr), "\r\x1b[Kcapturing %d/%d", done, total)
		}
	}
	results, err := target.Capture(ctx, s, targets, copts)
	if progress {
		fmt.Fprint(cliout.Raw(opts.Stderr), "\r\x1b[K")
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
		if err := cliout.JSON(opts.Stdout, results); err != nil {
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
	verbose := opts.Verbose
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
	tw.Write(opts.Stdout, cliout.NewPainter(opts.Stdout), cliout.Width(opts.Stdout, verbose))
	if !jsonOut && len(results) == 0 && len(notFound) == 0 {
		cliout.Println(opts.Stdout, "no local edits to capture")
	}
	NoteDryRun(opts.Stdout, dry, jsonOut)
	if len(notFound) > 0 {
		return WithHint(fmt.Errorf("no local edits of %s in any target", strings.Join(notFound, ", ")), "run 'skillstore status' to see the edited skills")
	}
	if failed > 0 {
		return WithHint(fmt.Errorf("%s %s", Plural(failed, "edited skill"), DryRunWord(dry, "not captured", "would not be captured")),
			"a skill that needs a merge is merged once the pending candidate is accepted or rejected; fix a refused one in the target and capture again")
	}
	if review > 0 {
		if !jsonOut {
			cliout.Printf(opts.Stderr, "skillstore: %s %s for review as candidates: run 'skillstore candidates list'\n", Plural(review, "edit"), DryRunWord(dry, waits(review), "would wait"))
		}
		return ErrReview
	}
	return nil
}

// resolveCaptureArgs resolves the skills capture is limited to; a name no
// published skill has is kept as typed, for capture to report that no
// target has edits of it.
func resolveCaptureArgs(ctx context.Context, s *store.Store, names []string) ([]string, error) {
	out := make([]string, len(names))
	for i, name := range names {
		resolved, err := s.ResolveSkill(ctx, name)
		switch {
		case errors.As(err, new(*store.UnknownSkillError)):
			out[i] = name
		case err != nil:
			return nil, err
		default:
			out[i] = resolved
		}
	}
	return out, nil
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
// the paths and the error in it are quoted (cliout.Quote).
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
			merged = fmt.Sprintf("%s: %s", Plural(n, "conflict"), strings.Join(cliout.QuoteAll(r.Conflicts), ", "))
		}
		what := "merged with " + r.Version + " into candidate " + ShortID(r.Candidate)
		switch {
		case r.Outcome == target.CandidatePending:
			what = "candidate " + ShortID(r.Candidate) + " made from this edit still waits"
		case dry:
			what = "would merge with " + r.Version + " into a candidate"
		}
		return fmt.Sprintf("%s\t%s%s (%s); review it with 'skillstore candidates show %s'", r.Outcome, what, raced, merged, r.Skill)
	}
	return fmt.Sprintf("%s\t%s", r.Outcome, cliout.Quote(r.Error))
}
