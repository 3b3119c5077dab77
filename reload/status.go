package reload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/skillstore/skillstore/internal/lockfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// State is how a folder export wrote compares with what is on disk now.
type State string

const (
	// StateClean: the folder holds what export wrote.
	StateClean State = "clean"
	// StateModified: someone changed the folder since export wrote it.
	StateModified State = "modified"
	// StateMissing: the folder was deleted; the next export installs it again.
	StateMissing State = "missing"
	// StateLinked: the folder is a symbolic link; export, status and
	// capture leave it alone (see ErrLinkedFolder). Link is its target.
	StateLinked State = "linked"
	// StateRaced: an edit that raced an export, kept in Dir under the
	// target's .skillstore folder (see Raced); Exported is the tree the
	// edit started from. Capture stores it.
	StateRaced State = "raced"
	// StateForeign: a skill the target would get has a folder there that
	// export did not create (Link is set when it is a symbolic link);
	// export leaves it alone. Status lists it every time; sync reports it
	// once.
	StateForeign State = "foreign"
	// StateConflict: a skill the target would get has no folder of its
	// own there (package target's collision policy for flat targets);
	// Error says which skill holds the folder.
	StateConflict State = "conflict"
)

// SkillStatus is the state of one exported skill in a target.
type SkillStatus struct {
	// Skill is the skill's name in the store; Folder, when set, is its
	// folder in the target, which has another name, and StoreTree the
	// store's version the folder was made from when their files differ
	// (see Origin).
	Skill     string     `json:"skill"`
	Folder    string     `json:"folder,omitempty"`
	StoreTree skillfs.ID `json:"store_tree,omitzero"`
	State     State      `json:"state"`
	// Exported is the tree export last wrote; Disk is the folder's tree now.
	Exported skillfs.ID `json:"exported,omitzero"` // zero for foreign
	Disk     skillfs.ID `json:"disk,omitzero"`
	// Class and Paths describe the local change (modified only).
	Class Class    `json:"class,omitempty"`
	Paths []string `json:"paths,omitempty"`
	// Dir is where a raced edit is kept (raced only).
	Dir string `json:"dir,omitempty"`
	// Link is where a linked folder points (linked only).
	Link string `json:"link,omitempty"`
	// Error says why a skill is in conflict (conflict only).
	Error string `json:"error,omitempty"`
}

// Status compares every skill folder export wrote into target with what is
// on disk, sorted by skill name. A target export never wrote to has no
// skills. It waits up to lockTimeout for an export in progress to finish.
func Status(ctx context.Context, target string, lockTimeout time.Duration) ([]SkillStatus, error) {
	if _, err := os.Stat(filepath.Join(bookkeeping(target), recordFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if lockTimeout == 0 {
		lockTimeout = defaultLockTimeout
	}
	lock, err := lockTarget(ctx, target, lockfile.Shared, lockTimeout)
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", target, err)
	}
	defer lock.Release()
	// With the lock held no export is staging: anything in tmp/ is left
	// over from one that failed or was killed.
	cleanStaging(target)
	rec, err := readRecord(target)
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", target, err)
	}
	names := make([]string, 0, len(rec.Skills))
	for name := range rec.Skills {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]SkillStatus, 0, len(names))
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		entry := rec.Skills[name]
		st := SkillStatus{Skill: entry.Identity(name), Exported: entry.Tree, StoreTree: entry.StoreTree, State: StateClean}
		if st.Skill != name {
			st.Folder = name
		}
		disk, err := ReadTree(filepath.Join(target, name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			st.State = StateMissing
		case errors.Is(err, ErrLinkedFolder):
			st.State = StateLinked
			st.Link, _ = os.Readlink(filepath.Join(target, name))
		case err != nil:
			return nil, fmt.Errorf("status of %s: %w", target, err)
		case !entry.owns(disk.ID):
			change := Classify(entry.tree(), disk)
			st.State, st.Disk, st.Class, st.Paths = StateModified, disk.ID, change.Class, change.Paths
		default:
			st.Disk = disk.ID
		}
		out = append(out, st)
	}
	raced, err := racedEdits(target)
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", target, err)
	}
	for _, r := range raced {
		st := SkillStatus{Skill: r.Skill, State: StateRaced, Exported: r.Base, Disk: r.Disk, Class: Cold, Dir: r.Dir}
		// A raced edit is named after its folder; the record says whose
		// folder it is, and which version when it is the one recorded.
		if e := rec.Skills[r.Skill]; e != nil && e.StoreName != "" {
			st.Skill, st.Folder = e.StoreName, r.Skill
			if e.Tree == r.Base {
				st.StoreTree = e.StoreTree
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// cleanStaging empties the target's tmp/ folder; the caller holds the
// target lock, so no export is staging there. Best effort.
func cleanStaging(target string) {
	dir := filepath.Join(bookkeeping(target), tmpDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// ErrFolderChanged is matched (errors.Is) when Adopt finds a skill folder
// that does not hold the files it was told about.
var ErrFolderChanged = errors.New("folder changed")

// Adopt records that the folder of skill name in target holds files, as if
// export had written them: after a capture stored a local edit as a new
// version, the folder is export's own again and no longer reported as
// modified. It fails with ErrFolderChanged if the folder holds anything
// else (it was edited again meanwhile), and changes nothing then.
func Adopt(ctx context.Context, target, name string, files []skillfs.File, lockTimeout time.Duration) error {
	changed, err := AdoptSkills(ctx, target, map[string][]skillfs.File{name: files}, lockTimeout)
	if err != nil {
		return err
	}
	if len(changed) > 0 {
		return fmt.Errorf("adopt %s: %w since it was read", name, ErrFolderChanged)
	}
	return nil
}

// AdoptSkills is Adopt for several folders of one target under one lock
// and one write of the record. It returns the names of the folders that
// changed since they were read (left as they were); the error is for what
// stops it entirely.
func AdoptSkills(ctx context.Context, target string, folders map[string][]skillfs.File, lockTimeout time.Duration) (changed []string, err error) {
	return AdoptFolders(ctx, target, folders, nil, lockTimeout)
}

// AdoptFolders is AdoptSkills that also records each folder's origin
// (origins[name]; a folder without one keeps its recorded skill name, and
// its store tree is forgotten, to be learnt again by the next export).
func AdoptFolders(ctx context.Context, target string, folders map[string][]skillfs.File, origins map[string]Origin, lockTimeout time.Duration) (changed []string, err error) {
	wants := make(map[string]*Tree, len(folders))
	for name, files := range folders {
		if err := CheckName(name); err != nil {
			return nil, err
		}
		want, err := NewTree(files)
		if err != nil {
			return nil, fmt.Errorf("adopt %s: %w", name, err)
		}
		wants[name] = want
	}
	if lockTimeout == 0 {
		lockTimeout = defaultLockTimeout
	}
	lock, err := lockTarget(ctx, target, lockfile.Exclusive, lockTimeout)
	if err != nil {
		return nil, fmt.Errorf("adopt in %s: %w", target, err)
	}
	defer lock.Release()
	cleanStaging(target)
	rec, err := readRecord(target)
	if err != nil {
		return nil, fmt.Errorf("adopt in %s: %w", target, err)
	}
	now := time.Now()
	for name, want := range wants {
		disk, err := ReadTree(filepath.Join(target, name))
		if err != nil {
			return nil, fmt.Errorf("adopt %s: %w", name, err)
		}
		if disk.ID != want.ID {
			changed = append(changed, name)
			continue
		}
		o, ok := origins[name]
		if old := rec.Skills[name]; !ok && old != nil {
			o = Origin{StoreName: old.StoreName}
		}
		rec.Skills[name] = newRecordEntry(disk, now).with(o)
	}
	sort.Strings(changed)
	if len(changed) == len(wants) {
		return changed, nil
	}
	return changed, writeRecord(target, rec)
}
