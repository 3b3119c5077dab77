package reload

import (
	"context"
	"errors"
	"fmt"
	"github.com/skillstore/skillstore/internal/folderscan"
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
	// StateUnreadable: the folder cannot be read as a skill folder: it
	// holds a FIFO, a socket or a device, it was replaced by a file, or it
	// cannot be opened. Error names the entry. Export and capture leave
	// it alone (capture reports it refused); the other skills go on.
	StateUnreadable State = "unreadable"
	// StateIgnored: an entry of the target's record (exported.json) that
	// is not one plain folder name of the target (a path such as
	// ../../x, a hidden name); export and status ignore it. Error says
	// why.
	StateIgnored State = "ignored"
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
	// Error says why a skill is in conflict, unreadable or ignored.
	Error string `json:"error,omitempty"`
}

// Status compares every skill folder export wrote into target with what is
// on disk, sorted by skill name. A target export never wrote to has no
// skills. It waits up to lockTimeout for an export in progress to finish.
func Status(ctx context.Context, target string, lockTimeout time.Duration) ([]SkillStatus, error) {
	return StatusCached(ctx, target, lockTimeout, nil)
}

// StatusCached is [Status] with a stat cache (nil: none): a file whose
// stat data is as the cache has it is not read again, so an unchanged
// target costs one lstat per file, as git status does. A folder the cache
// finds changed is read again whole, byte for byte, before it is called
// modified. The caller saves the cache.
func StatusCached(ctx context.Context, target string, lockTimeout time.Duration, cache *folderscan.StatCache) ([]SkillStatus, error) {
	b, err := openBook(target, "", false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", target, err)
	}
	defer b.close()
	if !b.has(recordFile) {
		return nil, nil
	}
	if lockTimeout == 0 {
		lockTimeout = defaultLockTimeout
	}
	if err := b.ignore(); err != nil {
		return nil, fmt.Errorf("status of %s: %w", target, err)
	}
	lock, err := b.lock(ctx, lockfile.Shared, lockTimeout)
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", target, err)
	}
	defer lock.Release()
	// With the lock held no export is staging: anything in tmp/ is left
	// over from one that failed or was killed.
	if err := cleanStaging(b); err != nil {
		return nil, fmt.Errorf("status of %s: %w", target, err)
	}
	rec, err := b.readRecord()
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", target, err)
	}
	out, err := recordedStatus(ctx, target, rec, cache)
	if err != nil {
		return nil, err
	}
	raced, err := racedEdits(b)
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", target, err)
	}
	return append(out, racedStatus(rec, raced)...), nil
}

// recordedStatus compares each folder of rec with the disk, and lists the
// record's ignored entries.
func recordedStatus(ctx context.Context, target string, rec *record, cache *folderscan.StatCache) ([]SkillStatus, error) {
	names := make([]string, 0, len(rec.Skills))
	for name := range rec.Skills {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]SkillStatus, 0, len(names)+len(rec.ignored))
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, folderStatus(target, name, rec.Skills[name], cache))
	}
	for _, e := range rec.ignored {
		out = append(out, SkillStatus{Skill: e.Name, State: StateIgnored, Error: e.Why})
	}
	return out, nil
}

// folderStatus compares the folder name of target, which export last
// wrote as entry, with the disk. A folder that cannot be read is
// unreadable: it is this folder's state, not an end to the status.
func folderStatus(target, name string, entry *recordEntry, cache *folderscan.StatCache) SkillStatus {
	st := SkillStatus{Skill: entry.Identity(name), Exported: entry.Tree, StoreTree: entry.StoreTree, State: StateClean}
	if st.Skill != name {
		st.Folder = name
	}
	dir := filepath.Join(target, name)
	disk, err := readTreeCached(dir, cache)
	if err == nil && cache != nil && !entry.holds(disk) {
		disk, err = ReadTree(dir) // changed: read every byte before saying so
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		st.State = StateMissing
	case errors.Is(err, ErrLinkedFolder):
		st.State = StateLinked
		st.Link, _ = os.Readlink(dir)
	case err != nil:
		st.State, st.Error = StateUnreadable, err.Error()
	case !entry.holds(disk):
		change := Classify(diskView(entry.tree()), disk)
		st.State, st.Disk, st.Class, st.Paths = StateModified, disk.ID, change.Class, change.Paths
	default:
		st.Disk = disk.ID
	}
	return st
}

// racedStatus lists the raced edits, named after the record's skills.
func racedStatus(rec *record, raced []Raced) []SkillStatus {
	var out []SkillStatus
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
	return out
}

// cleanStaging empties the target's tmp/ folder; the caller holds the
// target lock, so no export is staging there. A tmp/ that is not a plain
// folder is refused; a removal that fails is left for the next export.
func cleanStaging(b *book) error {
	tmp, err := b.sub(tmpDir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_ = emptyDir(tmp)
	return nil
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

// Adoption is what AdoptFolders records in one target: folders by name,
// each with the files it was read with, and the origins of some of them.
type Adoption struct {
	Folders map[string][]skillfs.File
	Origins map[string]Origin
}

// AdoptFolders is AdoptSkills that also records each folder's origin
// (origins[name]; a folder without one keeps its recorded skill name, and
// its store tree is forgotten, to be learnt again by the next export).
func AdoptFolders(ctx context.Context, target string, folders map[string][]skillfs.File, origins map[string]Origin, lockTimeout time.Duration) (changed []string, err error) {
	a := Adoption{Folders: folders, Origins: origins}
	wants, err := a.trees()
	if err != nil {
		return nil, err
	}
	if lockTimeout == 0 {
		lockTimeout = defaultLockTimeout
	}
	b, lock, err := lockTarget(ctx, target, "", lockfile.Exclusive, lockTimeout)
	if err != nil {
		return nil, fmt.Errorf("adopt in %s: %w", target, err)
	}
	defer b.close()
	defer lock.Release()
	if err := cleanStaging(b); err != nil {
		return nil, fmt.Errorf("adopt in %s: %w", target, err)
	}
	rec, err := b.readRecord()
	if err != nil {
		return nil, fmt.Errorf("adopt in %s: %w", target, err)
	}
	if changed, err = a.into(rec, target, wants); err != nil {
		return nil, err
	}
	if len(changed) == len(wants) {
		return changed, nil
	}
	return changed, b.writeRecord(rec)
}

// trees checks the folders' names and builds the tree of each.
func (a Adoption) trees() (map[string]*Tree, error) {
	wants := make(map[string]*Tree, len(a.Folders))
	for name, files := range a.Folders {
		if err := CheckName(name); err != nil {
			return nil, err
		}
		want, err := NewTree(files)
		if err != nil {
			return nil, fmt.Errorf("adopt %s: %w", name, err)
		}
		wants[name] = want
	}
	return wants, nil
}

// into records in rec each folder of target whose files on disk are still
// its wants tree, and returns the others (changed since they were read).
// Both AdoptFolders and a plan given ExportOptions.Adopted use it, so a
// dry run's plan reads the record the real adoption would write.
func (a Adoption) into(rec *record, target string, wants map[string]*Tree) (changed []string, err error) {
	now := time.Now()
	for name, want := range wants {
		disk, err := ReadTree(filepath.Join(target, name))
		if err != nil {
			return nil, fmt.Errorf("adopt %s: %w", name, err)
		}
		if disk.ID != diskView(want).ID {
			changed = append(changed, name)
			continue
		}
		o, ok := a.Origins[name]
		if old := rec.Skills[name]; !ok && old != nil {
			o = Origin{StoreName: old.StoreName}
		}
		rec.Skills[name] = newRecordEntry(want, now).with(o)
	}
	sort.Strings(changed)
	return changed, nil
}
