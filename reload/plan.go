package reload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"

	"github.com/skillstore/skillstore/internal/lockfile"
)

// Plan reports what Export would do in target with skills — the same
// decisions, made by the same code — and writes nothing: no folder, no
// bookkeeping, not even the target folder or its lock file when they do
// not exist yet. Results say what each skill would get (hot, cold,
// removed, locally-modified, foreign, unchanged); nothing is switched.
func Plan(ctx context.Context, target string, skills []Skill, opts ExportOptions) (*Report, error) {
	opts = opts.withDefaults()
	if err := checkSkillNames(skills); err != nil {
		return nil, err
	}
	// Hold the shared side of the target's lock, when the target has one,
	// so the plan does not read an export half done.
	rec := emptyRecord()
	b, err := openBook(target, opts.Root, false)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("plan export to %s: %w", target, err)
	}
	if err == nil {
		defer b.close()
		if b.has(lockName) {
			lock, err := b.lock(ctx, lockfile.Shared, opts.LockTimeout)
			if err != nil {
				return nil, fmt.Errorf("plan export to %s: %w", target, err)
			}
			defer lock.Release()
		}
		if rec, err = b.readRecord(); err != nil {
			return nil, fmt.Errorf("plan export to %s: %w", target, err)
		}
		if err := checkDirs(b); err != nil {
			return nil, fmt.Errorf("plan export to %s: %w", target, err)
		}
	}
	if a := opts.Adopted; a != nil && len(a.Folders) > 0 {
		wants, err := a.trees()
		if err != nil {
			return nil, fmt.Errorf("plan export to %s: %w", target, err)
		}
		if _, err := a.into(rec, target, wants); err != nil {
			return nil, fmt.Errorf("plan export to %s: %w", target, err)
		}
	}
	x := &exporter{target: target, opts: opts, rec: rec, report: &Report{Target: target, Atomic: true, Warnings: rec.warnings()}}
	before := rec.origins()
	if _, err := x.plan(ctx, skills); err != nil {
		return nil, fmt.Errorf("plan export to %s: %w", target, err)
	}
	sort.Slice(x.report.Results, func(i, j int) bool { return x.report.Results[i].Skill < x.report.Results[j].Skill })
	identify(x.report.Results, skills, before)
	return x.report, nil
}

// checkDirs refuses, as Export's prepareDirs does, a bookkeeping folder
// whose tmp/, retired/ or rescued/ is not a plain folder skillstore made
// (a link, say), creating and emptying nothing: so a plan fails where the
// export would.
func checkDirs(b *book) error {
	for _, name := range []string{tmpDir, retiredDir, rescuedDir} {
		if _, err := b.sub(name, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
