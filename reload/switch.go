package reload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// exchangeDirs is atomicfile.Exchange; tests replace it to exercise the fallback.
var exchangeDirs = atomicfile.Exchange

// run stages every new version, makes them durable with one filesystem
// sync, records the intent, then switches the folders one by one and
// records the outcome.
func (x *exporter) run(ctx context.Context, jobs []*job) error {
	if len(jobs) == 0 {
		if x.dirty {
			return writeRecord(x.target, x.rec)
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
			continue
		}
		if j.kind != jobRemove {
			stage, err := x.stage(j)
			if err != nil {
				fail(j, err)
				continue
			}
			j.stage = stage
			entry := x.rec.Skills[j.name]
			if entry == nil {
				entry = &recordEntry{Files: map[string]string{}}
				x.rec.Skills[j.name] = entry
			}
			entry.Pending = j.tree.ID
		}
		ready = append(ready, j)
	}
	// Nothing is switched unless every staged file is durable and the
	// intent is recorded.
	err := atomicfile.SyncFS(x.target)
	if err != nil {
		err = fmt.Errorf("sync staged skills: %w", err)
	} else if err = writeRecord(x.target, x.rec); err != nil {
		err = fmt.Errorf("record export intent: %w", err)
	}
	if err != nil {
		for _, j := range ready {
			j.result.Action, j.result.Error = ActionFailed, err.Error()
		}
		return errors.Join(append(errs, err)...)
	}
	for _, j := range ready {
		if err := x.switchJob(j); err != nil {
			fail(j, err)
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
	if err := atomicfile.SyncDir(x.target); err != nil {
		errs = append(errs, err)
	}
	if err := writeRecord(x.target, x.rec); err != nil {
		errs = append(errs, fmt.Errorf("record export: %w", err))
	}
	return errors.Join(errs...)
}

// stage writes j's files into a fresh folder under tmp/.
func (x *exporter) stage(j *job) (string, error) {
	dir, err := os.MkdirTemp(x.path(tmpDir), j.name+"-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	if err := WriteFiles(dir, j.files); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// WriteFiles writes files into the existing folder dir: directories 0755,
// files 0644 or 0755 (Executable), symlinks as links. Ignored files are not
// written.
func WriteFiles(dir string, files []skillfs.File) error {
	for _, f := range files {
		if err := skillfs.CheckPath(f.Path); err != nil {
			return err
		}
		if skillfs.Ignored(f.Path) {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		switch f.Mode {
		case skillfs.Symlink:
			if err := os.Symlink(string(f.Data), p); err != nil {
				return err
			}
		case skillfs.Executable:
			if err := os.WriteFile(p, f.Data, 0o755); err != nil {
				return err
			}
		default:
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// switchJob puts j's staged folder in place (or removes the folder) and
// updates the record. After the switch it re-reads the old folder: if
// someone edited it after it was checked, the switch is undone and the skill
// reported as locally modified, so an edit racing the export is kept.
func (x *exporter) switchJob(j *job) error {
	dst := filepath.Join(x.target, j.name)
	switch j.kind {
	case jobInstall:
		if err := atomicfile.RenameNoReplace(j.stage, dst); err != nil {
			if errors.Is(err, fs.ErrExist) {
				j.result.Action = ActionForeign
				j.result.Paths = nil
				os.RemoveAll(j.stage)
				return nil
			}
			return err
		}
		x.rec.Skills[j.name] = newRecordEntry(j.tree, time.Now())
		return nil
	case jobReplace:
		old := j.stage
		err := exchangeDirs(j.stage, dst)
		if errors.Is(err, atomicfile.ErrExchangeUnsupported) {
			x.report.Atomic = false
			old = x.retiredPath(j.name)
			if err := os.Rename(dst, old); err != nil {
				return err
			}
			if err := os.Rename(j.stage, dst); err != nil {
				os.Rename(old, dst)
				return err
			}
		} else if err != nil {
			return err
		}
		if x.editedMeanwhile(j, old) {
			if err := undoReplace(old, dst, j.stage); err != nil {
				return fmt.Errorf("undo switch after a concurrent edit: %w", err)
			}
			return nil
		}
		x.rec.Skills[j.name] = newRecordEntry(j.tree, time.Now())
		x.retire(j.name, old)
		return nil
	default: // jobRemove
		old := x.retiredPath(j.name)
		if err := os.Rename(dst, old); err != nil {
			return err
		}
		if x.editedMeanwhile(j, old) {
			if err := atomicfile.RenameNoReplace(old, dst); err != nil {
				return x.rescue(j.name, old, err)
			}
			return nil
		}
		delete(x.rec.Skills, j.name)
		if x.opts.Grace < 0 {
			os.RemoveAll(old)
		}
		return nil
	}
}

// editedMeanwhile reports whether the folder moved away to old differs
// from what was checked before the switch, and marks the result if so.
func (x *exporter) editedMeanwhile(j *job, old string) bool {
	t, err := ReadTree(old)
	if err == nil && t.ID == j.verified {
		return false
	}
	x.opts.Logger.Debug("folder changed during export; switch undone", "skill", j.name)
	j.result.Action = ActionLocallyModified
	j.result.DiskTree = t.TreeID()
	j.result.Paths = nil
	return true
}

// undoReplace puts the edited folder (now at old) back at dst.
func undoReplace(old, dst, stage string) error {
	if old == stage {
		if err := exchangeDirs(old, dst); err != nil {
			return err
		}
		return os.RemoveAll(stage)
	}
	tmp := stage + ".undo"
	if err := os.Rename(dst, tmp); err != nil {
		return err
	}
	if err := os.Rename(old, dst); err != nil {
		return err
	}
	return os.RemoveAll(tmp)
}

// rescue moves an edited folder that could not be put back out of
// retired/ (which is emptied after the grace period) into rescued/, which
// export never deletes, and returns an error saying where it is.
func (x *exporter) rescue(name, old string, cause error) error {
	dir := x.path(rescuedDir, strconv.FormatInt(time.Now().UnixNano(), 10)+"-"+name)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err == nil {
		if err := os.Rename(old, dir); err == nil {
			old = dir
		}
	}
	return fmt.Errorf("folder edited during export could not be put back (%v); it is kept at %s", cause, old)
}

// retiredPath names a folder in retired/ by the time it was retired, so
// cleanRetired knows when its grace period ends.
func (x *exporter) retiredPath(name string) string {
	return x.path(retiredDir, strconv.FormatInt(time.Now().UnixNano(), 10)+"-"+name)
}

// retire moves a replaced version out of tmp/ into retired/ (or deletes it
// at once when Grace is negative).
func (x *exporter) retire(name, old string) {
	if x.opts.Grace < 0 {
		os.RemoveAll(old)
		return
	}
	if strings.HasPrefix(old, x.path(retiredDir)+string(filepath.Separator)) {
		return
	}
	if err := os.Rename(old, x.retiredPath(name)); err != nil {
		os.RemoveAll(old)
	}
}

// cleanRetired deletes retired versions whose grace period has passed.
func (x *exporter) cleanRetired() {
	entries, err := os.ReadDir(x.path(retiredDir))
	if err != nil {
		return
	}
	now := time.Now()
	for _, e := range entries {
		stamp, _, _ := strings.Cut(e.Name(), "-")
		ns, err := strconv.ParseInt(stamp, 10, 64)
		if err != nil || now.Sub(time.Unix(0, ns)) >= x.opts.Grace {
			os.RemoveAll(x.path(retiredDir, e.Name()))
		}
	}
}
