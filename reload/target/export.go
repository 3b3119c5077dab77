package target

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

// Options are what export, status and capture share.
type Options struct {
	// Logger receives debug details; nil discards them.
	Logger *slog.Logger
	// LockTimeout bounds the wait for a target folder's lock (another
	// export or a watcher's read); zero means reload's default.
	LockTimeout time.Duration
	// ReplaceLinks lets export replace a skill folder that is a symbolic
	// link to a copy skillstore manages (export --replace-links; see
	// reload.ExportOptions.ReplaceLinks).
	ReplaceLinks bool
	// Pending, in a dry run, holds what capture would have recorded in
	// the target folders, for the export plan that follows (see Pending).
	// Nil outside a dry run.
	Pending *Pending
	// MaxBudget, when set, replaces each target's own max budget (export
	// --max-budget; see ParseMaxBudget).
	MaxBudget string
	// Home is the home the agents' user folders are in (the user's home
	// when empty): it tells which agents read a target (Target.Reach).
	Home string
}

func (o Options) home() string {
	if o.Home != "" {
		return o.Home
	}
	home, _ := os.UserHomeDir()
	return home
}

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Exported is one target's part of an export.
type Exported struct {
	Target string `json:"target"`
	Dir    string `json:"dir"`
	// Kind is the target's kind ("" for a skills folder); a marketplace
	// target's results are its plugins and its catalog file.
	Kind string `json:"kind,omitempty"`
	// Atomic reports that the filesystem switched each folder in one
	// atomic exchange (false: two renames).
	Atomic  bool            `json:"atomic"`
	Results []reload.Result `json:"results"`
	Error   string          `json:"error,omitempty"`
	// Warnings are about entries of the target's export record that
	// export ignored (reload.Report.Warnings).
	Warnings []string `json:"warnings,omitempty"`
	// LeftOut, for a marketplace target, is what its agent's format cannot
	// say of each plugin export wrote (parts, manifest keys), and why.
	LeftOut []LeftOut `json:"left_out,omitempty"`
	// Listing is what the skills export wrote (or refused to write) cost
	// the skills list of each agent reading the folder that documents a
	// budget, measured before writing (see measureListing).
	Listing []AgentListing `json:"listing,omitempty"`
}

// ExportError lists the targets, and the skills in a target, that an
// export could not write; everything else was written.
type ExportError struct {
	Failed []TargetError
}

// TargetError is one target, or one skill of a target, that failed.
type TargetError struct {
	Target string
	// Skill is set when only that skill failed.
	Skill string
	Err   error
}

func (e *ExportError) Error() string {
	parts := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		where := f.Target
		if f.Skill != "" {
			where += "/" + f.Skill
		}
		parts[i] = fmt.Sprintf("%s: %v", where, f.Err)
	}
	return "export failed for " + strings.Join(parts, "; ")
}

// Unwrap gives the targets' errors.
func (e *ExportError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		errs[i] = f.Err
	}
	return errs
}

// Export writes the active published skills into each target (those its
// patterns want), touching only skills whose version changed. A failing
// target or skill is reported in its entry and the others go on; the
// error is then an *ExportError naming the failed ones. On a dry-run store
// (store.DryRun) it is Plan: versions a dry run never wrote must never
// reach a target.
func Export(ctx context.Context, s *store.Store, targets []Target, opts Options) ([]Exported, error) {
	return export(ctx, s, targets, opts, s.IsDryRun())
}

// Plan reports what Export would write into each target, writing nothing
// (see [reload.Plan]): export --dry-run, and sync's export in a dry run
// (check). Its results and error are the ones Export would give.
func Plan(ctx context.Context, s *store.Store, targets []Target, opts Options) ([]Exported, error) {
	return export(ctx, s, targets, opts, true)
}

// export is Export, or Plan when plan is set: the same decisions, made by
// the same code, with the writes left out.
func export(ctx context.Context, s *store.Store, targets []Target, opts Options, plan bool) ([]Exported, error) {
	published, reads, err := publishedReads(ctx, s)
	if err != nil {
		return nil, err
	}
	refused, err := checkFolders(ctx, s, targets)
	if err != nil {
		return nil, err
	}
	eo := opts.export(ctx, s)
	eo.Reading = reads.batch
	var failed []TargetError
	out := make([]Exported, 0, len(targets))
	for _, t := range targets {
		var te Exported
		if err := refused[t.Name]; err != nil {
			// This target alone; nothing is written into its folder.
			out = append(out, Exported{Target: t.Name, Dir: t.Dir, Kind: t.Kind, Results: []reload.Result{}, Error: err.Error()})
			failed = append(failed, TargetError{Target: t.Name, Err: err})
			continue
		}
		if t.IsMarketplace() {
			var err error
			if te, err = exportMarketplace(ctx, s, t, eo, plan); err != nil {
				failed = append(failed, TargetError{Target: t.Name, Err: err})
			}
			failed = append(failed, te.failedResults()...)
		} else {
			teo := eo
			teo.Root = t.Project // a project's target: opened from its root, following no link
			if plan {
				teo.Adopted = opts.Pending.adopted(t.Dir)
			}
			var tf []TargetError
			measure := func(t Target, skills []reload.Skill) ([]AgentListing, error) {
				return t.measureListing(reads, skills, opts.home(), opts.MaxBudget)
			}
			te, tf = exportFlat(ctx, t.pinnedSkills(published, reads), t, teo, plan, measure)
			failed = append(failed, tf...)
		}
		out = append(out, te)
	}
	if len(failed) > 0 {
		return out, &ExportError{Failed: failed}
	}
	return out, nil
}

// exportPublished is Export of the published skills given (named by their
// store names) into flat targets.
func exportPublished(ctx context.Context, published []reload.Skill, targets []Target, eo reload.ExportOptions) ([]Exported, error) {
	var failed []TargetError
	out := make([]Exported, 0, len(targets))
	for _, t := range targets {
		te, tf := exportFlat(ctx, published, t, eo, false, nil)
		failed = append(failed, tf...)
		out = append(out, te)
	}
	if len(failed) > 0 {
		return out, &ExportError{Failed: failed}
	}
	return out, nil
}

// exportFlat exports into a folder of skill folders, under the collision
// policy's folder names (only plans it when plan is set), and lists what
// failed. measure, when set, measures the skills list first: a target
// over its max budget is refused whole, nothing written into it.
func exportFlat(ctx context.Context, published []reload.Skill, t Target, eo reload.ExportOptions, plan bool,
	measure func(Target, []reload.Skill) ([]AgentListing, error)) (Exported, []TargetError) {
	var failed []TargetError
	skills, conflicts := t.wanted(published)
	var listing []AgentListing
	if measure != nil {
		var err error
		listing, err = measure(t, skills)
		var over *OverBudgetError
		switch {
		case errors.As(err, &over):
			return Exported{Target: t.Name, Dir: t.Dir, Results: []reload.Result{}, Error: err.Error(), Listing: listing},
				[]TargetError{{Target: t.Name, Err: err}}
		case err != nil:
			return Exported{Target: t.Name, Dir: t.Dir, Results: []reload.Result{}, Error: err.Error()},
				[]TargetError{{Target: t.Name, Err: fmt.Errorf("measure the skills list: %w", err)}}
		}
	}
	write := reload.Export
	if plan {
		write = reload.Plan
	}
	rep, err := write(ctx, t.Dir, skills, eo)
	te := Exported{Target: t.Name, Dir: t.Dir, Results: []reload.Result{}, Listing: listing}
	if rep != nil {
		te.Atomic, te.Results, te.Warnings = rep.Atomic, withConflicts(rep.Results, conflicts), rep.Warnings
	}
	if err != nil {
		te.Error = err.Error()
		failed = append(failed, TargetError{Target: t.Name, Err: err})
	}
	return te, append(failed, te.failedResults()...)
}

// failedResults lists the folders of te that failed.
func (te Exported) failedResults() []TargetError {
	var out []TargetError
	for _, r := range te.Results {
		if r.Action == reload.ActionFailed {
			out = append(out, TargetError{Target: te.Target, Skill: r.Skill, Err: errors.New(r.Error)})
		}
	}
	return out
}

// withConflicts adds the skills the collision policy left out to an
// export's results, in name order.
func withConflicts(results, conflicts []reload.Result) []reload.Result {
	if len(conflicts) == 0 {
		return results
	}
	out := append(results, conflicts...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Skill < out[j].Skill })
	return out
}

// Published lists the latest version of every active skill, with its tree
// id and a loader for its files, so that export reads from the store only
// the skills whose version changed.
func Published(ctx context.Context, s *store.Store) ([]reload.Skill, error) {
	out, _, err := publishedReads(ctx, s)
	return out, err
}

// publishedReads is Published, with the storeReads its loaders read
// through (give its batch to reload as ExportOptions.Reading).
func publishedReads(ctx context.Context, s *store.Store) ([]reload.Skill, *storeReads, error) {
	var out []reload.Skill
	reads := &storeReads{s: s, ctx: ctx}
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
				Tree: tree,
				Load: func() ([]skillfs.File, error) { return reads.load(tree) },
			})
		}
		return nil
	})
	return out, reads, err
}
