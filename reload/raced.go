package reload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/lockfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// An edit can race an export: a program that opened SKILL.md before
// export switched the folder writes into the old folder after export
// checked it. Export cannot stop that, so it never deletes a folder it
// moved away without checking it again: every folder under retired/ is
// named after the tree it held when it was moved
// (<nanoseconds>-<tree>-<skill>), and one that holds anything else by the
// time it would be deleted is an edit that raced the export. Such folders,
// and the ones moved to rescued/ (named the same way, after the tree the
// edit started from), are reported by Status as StateRaced and stay until
// capture has stored them ([DropRaced]).

// folderName names a folder under retired/ or rescued/.
func folderName(now time.Time, tree skillfs.ID, skill string) string {
	return strconv.FormatInt(now.UnixNano(), 10) + "-" + tree.String() + "-" + skill
}

// parseFolderName reads a name made by folderName. Names of older
// versions (<nanoseconds>-<skill>) give a zero tree.
func parseFolderName(name string) (stamp time.Time, tree skillfs.ID, skill string, ok bool) {
	ns, rest, found := strings.Cut(name, "-")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !found || err != nil {
		return time.Time{}, skillfs.ID{}, "", false
	}
	if hexID, s, found := strings.Cut(rest, "-"); found {
		if id, err := skillfs.ParseID(hexID); err == nil {
			return time.Unix(0, n), id, s, true
		}
	}
	return time.Unix(0, n), skillfs.ID{}, rest, true
}

// sweepRetired runs with the target lock held exclusively. A retired
// folder whose grace period has passed is deleted if it still holds the
// tree it was retired with, and moved to rescued/ if it changed. Folders
// still in their grace period are not read (Status reports the changed
// ones), so export reads each replaced folder once more, not once per run.
func (x *exporter) sweepRetired() {
	names, err := x.retired.Names()
	if err != nil {
		return
	}
	now := time.Now()
	for _, name := range names {
		old := loc{x.retired, name}
		stamp, tree, skill, ok := parseFolderName(name)
		if ok && now.Sub(stamp) < x.opts.Grace {
			continue
		}
		if ok && !tree.IsZero() {
			if disk, err := ReadTree(old.path()); err != nil || disk.ID != tree {
				x.opts.Logger.Debug("retired folder changed after export moved it; kept as a raced edit", "skill", skill, "dir", old.path())
				_ = x.moveToRescued(old, name)
				continue
			}
		}
		_ = removeAll(old)
	}
}

// moveToRescued moves the folder at old into rescued/ under name.
func (x *exporter) moveToRescued(old loc, name string) error {
	rescued, err := x.book.sub(rescuedDir, true)
	if err != nil {
		return err
	}
	return move(old, loc{rescued, name})
}

// removeIfUnchanged deletes the folder at old if it still holds tree; a
// folder written since (an edit racing the export through a file opened
// before the switch) is kept in rescued/ instead.
func (x *exporter) removeIfUnchanged(old loc, skill string, tree skillfs.ID) {
	if disk, err := ReadTree(old.path()); err == nil && disk.ID == tree {
		_ = removeAll(old)
		return
	}
	_ = x.moveToRescued(old, folderName(time.Now(), tree, skill))
}

// Raced is an edit that raced an export: a folder export moved out of a
// target that someone wrote to after export had checked it.
type Raced struct {
	Skill string
	// Dir holds the edited folder (under the target's .skillstore).
	Dir string
	// Base is the tree the folder held before the edit: what export had
	// written there.
	Base skillfs.ID
	// Disk is the folder's tree now.
	Disk skillfs.ID
}

// racedEdits lists the raced edits of the target of b: changed folders
// in retired/ and everything in rescued/. It needs the target lock (either
// side). A retired/ or rescued/ that is not a plain folder is refused.
func racedEdits(b *book) ([]Raced, error) {
	var out []Raced
	for _, sub := range []string{retiredDir, rescuedDir} {
		dir, err := b.sub(sub, false)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		names, err := dir.Names()
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			_, tree, skill, ok := parseFolderName(name)
			if !ok || tree.IsZero() || CheckName(skill) != nil {
				continue
			}
			p := dir.Join(name)
			// A folder that cannot be read (or a link put in its place)
			// is still listed (Disk zero): capture then says what is
			// wrong with it.
			disk, err := ReadTree(p)
			if err == nil && sub == retiredDir && disk.ID == tree {
				continue
			}
			out = append(out, Raced{Skill: skill, Dir: p, Base: tree, Disk: disk.TreeID()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, nil
}

// DropRaced deletes the raced edit in dir (as listed by Status) once
// capture has stored it: files are what capture read. A folder that
// changed again since is kept, and ErrFolderChanged returned. dir must be
// a folder of the target's retired/ or rescued/.
func DropRaced(ctx context.Context, target, dir string, files []skillfs.File, lockTimeout time.Duration) error {
	want, err := NewTree(files)
	if err != nil {
		return fmt.Errorf("drop raced edit %s: %w", dir, err)
	}
	if lockTimeout == 0 {
		lockTimeout = defaultLockTimeout
	}
	b, lock, err := lockTarget(ctx, target, "", lockfile.Exclusive, lockTimeout)
	if err != nil {
		return fmt.Errorf("drop raced edit %s: %w", dir, err)
	}
	defer b.close()
	defer lock.Release()
	sub := filepath.Base(filepath.Dir(dir))
	if (sub != retiredDir && sub != rescuedDir) || filepath.Dir(dir) != b.dir.Join(sub) {
		return fmt.Errorf("drop raced edit %s: not in %s or %s of %s", dir, retiredDir, rescuedDir, b.dir.Path())
	}
	parent, err := b.sub(sub, false)
	if err != nil {
		return fmt.Errorf("drop raced edit %s: %w", dir, err)
	}
	disk, err := ReadTree(dir)
	if err != nil {
		return fmt.Errorf("drop raced edit %s: %w", dir, err)
	}
	if disk.ID != diskView(want).ID {
		return fmt.Errorf("drop raced edit %s: %w since it was read", dir, ErrFolderChanged)
	}
	return removeAll(loc{parent, filepath.Base(dir)})
}
