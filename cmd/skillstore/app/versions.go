package app

import (
	"context"
	"errors"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/treediff"
)

// DiffOptions are diff's: Name is NAME[@A]; To is @B, a folder, or empty
// for the latest version.
type DiffOptions struct {
	SkillOptions
	To string
	// Stat prints a summary of the lines added and deleted per file.
	Stat bool
	// ExitCode makes differences end the command with ErrReported, as git
	// diff --exit-code.
	ExitCode bool
}

// Diff prints what changed between two versions, or a version and a
// folder.
func Diff(ctx context.Context, opts DiffOptions) error {
	s, from, err := opts.openSpec(ctx)
	if err != nil {
		return err
	}
	res, err := s.Diff(ctx, from, opts.To)
	if err != nil {
		return err
	}
	if err := writeDiff(opts, res); err != nil {
		return err
	}
	if opts.ExitCode && len(res.Changes) > 0 {
		return ErrReported
	}
	return nil
}

// writeDiff prints a diff result as JSON, as a --stat summary, or as a
// unified diff (coloured on a terminal).
func writeDiff(opts DiffOptions, res store.DiffResult) error {
	out := opts.Stdout
	if opts.JSON {
		if res.Changes == nil {
			res.Changes = []treediff.FileChange{}
		}
		if opts.Stat {
			return cliout.JSON(out, map[string]any{"from": res.From, "to": res.To, "stat": treediff.Stats(res.Changes)})
		}
		return cliout.JSON(out, res)
	}
	if len(res.Changes) == 0 {
		cliout.Printf(out, "no differences between %s and %s\n", res.From, res.To)
		return nil
	}
	if opts.Stat {
		width, ok := cliout.TermWidth(out)
		if !ok {
			width = 80
		}
		return treediff.WriteStat(out, treediff.Stats(res.Changes), width)
	}
	return cliout.WriteDiff(out, res.Changes)
}

// CheckoutOptions are checkout's: the folder Dir, which Force lets be
// replaced when not empty.
type CheckoutOptions struct {
	SkillOptions
	Dir   string
	Force bool
}

// Checkout writes a version's files into a folder, atomically.
func Checkout(ctx context.Context, opts CheckoutOptions) error {
	s, spec, err := opts.openSpec(ctx)
	if err != nil {
		return err
	}
	if err := RefuseTargetFolder(ctx, s, opts.Dir); err != nil {
		return err
	}
	v, err := s.Checkout(ctx, spec, opts.Dir, opts.Force)
	if errors.Is(err, store.ErrNotEmpty) {
		return WithHint(err, "nothing was written; pick an empty folder, or use --force to replace its content")
	}
	if err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "checked out %s into %s\n", v.Name(), opts.Dir)
	return nil
}

// RollbackOptions are rollback's: the skill Name and the Version whose
// files the new version takes.
type RollbackOptions struct {
	SkillOptions
	Version string
	Reason  string
	// DryRun reports the version that would be recorded, writing nothing.
	DryRun bool
}

// Rollback records a new version with the files of an earlier one.
func Rollback(ctx context.Context, opts RollbackOptions) error {
	s, err := opts.OpenStoreFor(ctx, opts.DryRun)
	if err != nil {
		return err
	}
	name, err := s.ResolveSkill(ctx, opts.Name)
	if err != nil {
		return err
	}
	v, err := s.Rollback(ctx, name, opts.Version, opts.Reason)
	if errors.Is(err, store.ErrNoChange) {
		return WithHint(err, "nothing was written")
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, ToVersionJSON(v))
	}
	if opts.DryRun {
		cliout.Printf(opts.Stdout, "%s would be recorded (commit %s): %s\n", v.Name(), ShortHash(v.Commit), v.Reason)
		NoteDryRun(opts.Stdout, opts.DryRun, opts.JSON)
		return nil
	}
	cliout.Printf(opts.Stdout, "%s recorded (commit %s): %s\n", v.Name(), ShortHash(v.Commit), v.Reason)
	return nil
}

// StatusChangeOptions are disable's, enable's and rm's: the skill, its
// new status, and why.
type StatusChangeOptions struct {
	SkillOptions
	Status store.Status
	Reason string
	// Purge (rm) deletes the skill's refs so gc can delete its history.
	Purge bool
}

// SetStatus disables, enables or removes a skill (history kept).
func SetStatus(ctx context.Context, opts StatusChangeOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	name, err := s.ResolveSkill(ctx, opts.Name)
	if err != nil {
		return err
	}
	out := opts.Stdout
	err = s.SetStatus(ctx, name, opts.Status, opts.Reason)
	if errors.Is(err, store.ErrNoChange) {
		cliout.Printf(out, "%s is already %s\n", name, opts.Status)
		return nil
	}
	if err != nil {
		return err
	}
	if opts.Status == store.StatusRemoved {
		cliout.Printf(out, "%s removed (history kept; 'skillstore enable %s' restores it)\n", name, name)
		return nil
	}
	cliout.Printf(out, "%s is now %s\n", name, opts.Status)
	return nil
}

// Remove is rm: the skill removed (SetStatus), or with Purge its refs
// deleted for gc to delete its history.
func Remove(ctx context.Context, opts StatusChangeOptions) error {
	opts.Status = store.StatusRemoved
	if !opts.Purge {
		return SetStatus(ctx, opts)
	}
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	name, err := s.ResolveSkill(ctx, opts.Name)
	if err != nil {
		return err
	}
	if err := s.Purge(ctx, name, opts.Reason); err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "%s purged; 'skillstore gc' deletes its objects once they are older than the grace period\n", name)
	return nil
}
