package reload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/safedir"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// run stages every new version, makes them durable with one filesystem
// sync, records the intent, then switches the folders one by one and
// records the outcome.
func (x *exporter) run(ctx context.Context, jobs []*job) error {
	if len(jobs) == 0 {
		if x.dirty {
			return x.book.writeRecord(x.rec)
		}
		return nil
	}
	var errs []error
	fail := func(j *job, err error) {
		j.result.Action = ActionFailed
		j.result.Error = err.Error()
		errs = append(errs, fmt.Errorf("skill %s: %w", j.name, err))
	}
	var ready []*job
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			fail(j, err)
			x.dropStage(j)
			continue
		}
		if j.kind != jobRemove {
			if j.stage == "" && j.stageErr == nil {
				x.stageAll([]*job{j})
			}
			if j.stageErr != nil {
				fail(j, j.stageErr)
				continue
			}
			x.report.Warnings = append(x.report.Warnings, j.notes...)
			entry := x.rec.Skills[j.name]
			if entry == nil {
				entry = &recordEntry{Files: map[string]string{}}
				x.rec.Skills[j.name] = entry
			}
			entry.Pending = diskView(j.tree).ID // what the folder will read as
		}
		ready = append(ready, j)
	}
	// Nothing is switched unless every staged file is durable and the
	// intent is recorded.
	err := atomicfile.SyncFS(x.target)
	if err != nil {
		err = fmt.Errorf("sync staged skills: %w", err)
	} else if err = x.book.writeRecord(x.rec); err != nil {
		err = fmt.Errorf("record export intent: %w", err)
	}
	if err != nil {
		for _, j := range ready {
			j.result.Action, j.result.Error = ActionFailed, err.Error()
			x.dropStage(j)
		}
		return errors.Join(append(errs, err)...)
	}
	for _, j := range ready {
		if err := x.switchJob(j); err != nil {
			fail(j, err)
			x.dropStage(j)
		}
	}
	for _, j := range jobs {
		if entry := x.rec.Skills[j.name]; entry != nil && !entry.Pending.IsZero() {
			// The switch did not happen: forget the intent.
			if entry.Tree.IsZero() {
				delete(x.rec.Skills, j.name)
			} else {
				entry.Pending = skillfs.ID{}
			}
		}
	}
	if err := x.book.target.Sync(); err != nil {
		errs = append(errs, err)
	}
	if err := x.book.writeRecord(x.rec); err != nil {
		errs = append(errs, fmt.Errorf("record export: %w", err))
	}
	return errors.Join(errs...)
}

// switchJob puts j's staged folder in place (or removes the folder) and
// updates the record. After the switch it re-reads the old folder: if
// someone edited it after it was checked, the switch is undone and the skill
// reported as locally modified, so an edit racing the export is kept.
func (x *exporter) switchJob(j *job) error {
	dst, stage := loc{x.book.target, j.name}, loc{x.tmp, j.stage}
	switch j.kind {
	case jobInstall:
		if err := moveNoReplace(stage, dst); err != nil {
			if errors.Is(err, fs.ErrExist) {
				j.result.Action = ActionForeign
				j.result.Paths = nil
				_ = removeAll(stage)
				return nil
			}
			return err
		}
		x.rec.Skills[j.name] = newRecordEntry(j.tree, time.Now()).with(j.origin)
		return nil
	case jobReplaceLink:
		return x.switchLink(j, dst, stage)
	case jobReplace:
		old := stage
		err := exchangeDirs(stage, dst)
		if errors.Is(err, safedir.ErrExchangeUnsupported) {
			x.report.Atomic = false
			old = x.retiredLoc(j.name, j.verified)
			if err := move(dst, old); err != nil {
				return err
			}
			if err := move(stage, dst); err != nil {
				_ = move(old, dst)
				return err
			}
		} else if err != nil {
			return err
		}
		if x.editedMeanwhile(j, old) {
			if err := x.undoReplace(j, old, dst); err != nil {
				return fmt.Errorf("undo switch after a concurrent edit: %w", err)
			}
			return nil
		}
		x.rec.Skills[j.name] = newRecordEntry(j.tree, time.Now()).with(j.origin)
		x.retire(j.name, old, j.verified)
		return nil
	default: // jobRemove
		old := x.retiredLoc(j.name, j.verified)
		if err := move(dst, old); err != nil {
			return err
		}
		if x.editedMeanwhile(j, old) {
			if err := moveNoReplace(old, dst); err != nil {
				return x.rescue(j.name, j.verified, old, err)
			}
			return nil
		}
		delete(x.rec.Skills, j.name)
		if x.opts.Grace < 0 {
			x.removeIfUnchanged(old, j.name, j.verified)
		}
		return nil
	}
}

// editedMeanwhile reports whether the folder moved away to old differs
// from what was checked before the switch, and marks the result if so.
func (x *exporter) editedMeanwhile(j *job, old loc) bool {
	t, err := ReadTree(old.path())
	if err == nil && t.ID == j.verified {
		return false
	}
	x.opts.Logger.Debug("folder changed during export; switch undone", "skill", j.name)
	j.result.Action = ActionLocallyModified
	j.result.DiskTree = t.TreeID()
	j.result.Paths = nil
	return true
}

// undoReplace puts the edited folder (now at old) back at dst. The new
// version it takes out again may have been written to as well (someone
// opened a file in it after the switch, and may still write): it is
// retired like a replaced version, so the sweep keeps it if it changed.
func (x *exporter) undoReplace(j *job, old, dst loc) error {
	taken := loc{x.tmp, j.stage}
	if old == taken {
		if err := exchangeDirs(old, dst); err != nil {
			return err
		}
	} else {
		taken.name += ".undo"
		if err := move(dst, taken); err != nil {
			return err
		}
		if err := move(old, dst); err != nil {
			return err
		}
	}
	x.retire(j.name, taken, diskView(j.tree).ID)
	return nil
}

// dropStage removes the staged folder of a job whose switch did not
// happen. If the stage holds anything but the staged version (a failed
// undo left the edited folder there), it is kept in rescued/.
func (x *exporter) dropStage(j *job) {
	if j.stage == "" || j.tree == nil {
		return
	}
	stage := loc{x.tmp, j.stage}
	if _, err := x.tmp.Mode(j.stage); err != nil {
		return
	}
	if disk, err := ReadTree(stage.path()); err == nil && disk.ID == diskView(j.tree).ID {
		_ = removeAll(stage)
		return
	}
	_ = x.moveToRescued(stage, folderName(time.Now(), j.verified, j.name))
}

// rescue moves an edited folder that could not be put back out of
// retired/ (which is emptied after the grace period) into rescued/, which
// export never deletes, and returns an error saying where it is.
func (x *exporter) rescue(name string, base skillfs.ID, old loc, cause error) error {
	kept, fname := old.path(), folderName(time.Now(), base, name)
	if x.moveToRescued(old, fname) == nil {
		kept = filepath.Join(x.book.dir.Join(rescuedDir), fname)
	}
	return fmt.Errorf("folder edited during export could not be put back (%v); it is kept at %s", cause, kept)
}

// retiredLoc names a folder in retired/ by the time it was retired, so
// the sweep knows when its grace period ends, and by the tree it holds,
// so the sweep sees an edit that reached it after the switch.
func (x *exporter) retiredLoc(name string, tree skillfs.ID) loc {
	return loc{x.retired, folderName(time.Now(), tree, name)}
}

// retire moves a replaced version (holding tree) out of tmp/ into
// retired/; when Grace is negative it is deleted at once unless it
// changed since it was checked.
func (x *exporter) retire(name string, old loc, tree skillfs.ID) {
	if x.opts.Grace < 0 {
		x.removeIfUnchanged(old, name, tree)
		return
	}
	if old.dir == x.retired {
		return
	}
	if err := move(old, x.retiredLoc(name, tree)); err != nil {
		x.removeIfUnchanged(old, name, tree)
	}
}
