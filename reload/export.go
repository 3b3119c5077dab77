package reload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/lockfile"
	"github.com/skillstore/skillstore/internal/safedir"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Action is what export did with one skill in a target.
type Action string

const (
	// ActionUnchanged: the target already holds this version.
	ActionUnchanged Action = "unchanged"
	// ActionHot: the new version differs only in SKILL.md text.
	ActionHot Action = "hot"
	// ActionCold: first install, or files, modes or symlinks changed.
	ActionCold Action = "cold"
	// ActionRemoved: a skill export had written is no longer in the set,
	// so its folder was removed (a cold change for the agent).
	ActionRemoved Action = "removed"
	// ActionLocallyModified: someone changed the folder since export wrote
	// it; it was left alone. Capture it, then export again.
	ActionLocallyModified Action = "locally-modified"
	// ActionForeign: a folder of that name exists that export did not
	// create; it was left alone.
	ActionForeign Action = "foreign"
	// ActionFailed: writing this skill failed; Error says why. The folder
	// is as it was.
	ActionFailed Action = "failed"
	// ActionLinked: the skill's folder in the target is a symbolic link;
	// it was left alone (see ErrLinkedFolder). Error names the link.
	ActionLinked Action = "linked"
	// ActionConflict: the skill has no folder of its own in the target
	// (its folder name is another wanted skill's, or too long); it was not
	// exported. Error names the other skill. Package target decides this.
	ActionConflict Action = "conflict"
)

// Skipped reports whether export left the skill's folder alone although its
// version in the set differs.
func (a Action) Skipped() bool {
	return a == ActionLocallyModified || a == ActionForeign || a == ActionFailed || a == ActionLinked || a == ActionConflict
}

// Result is what happened to one skill of one target.
type Result struct {
	// Skill is the skill's name in the store; Folder, when set, is its
	// folder in the target, which has another name (see Origin).
	Skill  string `json:"skill"`
	Folder string `json:"folder,omitempty"`
	// Was names the skill the folder held before, when another skill
	// takes the folder over; MovedFrom is the folder the skill was
	// exported to before, when it moves (a new collision of short names),
	// and MovedTo, on the old folder's removal, the folder it moved to.
	Was       string `json:"was,omitempty"`
	MovedFrom string `json:"moved_from,omitempty"`
	MovedTo   string `json:"moved_to,omitempty"`
	Action    Action `json:"action"`
	// Paths are the changed paths: between the old and new version for
	// hot, cold and removed; the local changes for locally-modified.
	Paths []string `json:"paths,omitempty"`
	// OldTree is the tree export had written before (zero on first install).
	OldTree skillfs.ID `json:"old_tree,omitzero"`
	// NewTree is the tree of the version in the set (zero on removal).
	NewTree skillfs.ID `json:"new_tree,omitzero"`
	// DiskTree is what the folder holds when it was skipped as locally
	// modified or foreign (zero if it is missing or unreadable).
	DiskTree skillfs.ID `json:"disk_tree,omitzero"`
	Error    string     `json:"error,omitempty"`
	// Link is where a replaced symbolic link pointed (link-replaced), or
	// where one left alone points (foreign).
	Link string `json:"link,omitempty"`
}

// Report is the outcome of one Export: one Result per skill, sorted by name.
type Report struct {
	Target  string   `json:"target"`
	Results []Result `json:"results"`
	// Atomic is false when the filesystem could not exchange folders
	// atomically and export fell back to two renames per skill.
	Atomic bool `json:"atomic"`
	// Warnings are about entries of the target's record that export
	// ignored (see readRecord), and links this system could not write as
	// links (see writeLink).
	Warnings []string `json:"warnings,omitempty"`
}

// ExportOptions tune Export. The zero value uses the defaults.
type ExportOptions struct {
	// Grace is how long a replaced or removed version is kept under
	// .skillstore/retired, so that a reader that opened the old folder just
	// before the switch can finish reading it. Default 30s; negative
	// removes it at once.
	Grace time.Duration
	// LockTimeout bounds the wait for another export into the same target.
	// Default 30s.
	LockTimeout time.Duration
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// ReplaceLinks replaces a skill folder that export never wrote and
	// that is a symbolic link to a copy skillstore manages (as another
	// installer links them) with the exported folder (see takeover.go);
	// without it such links are left alone. A folder export wrote that a
	// person then replaced with a link is always left alone.
	ReplaceLinks bool
	// IsVersion, when set, reports whether tree is a version of skill in
	// the store, so a link to an older copy counts as managed.
	IsVersion func(skill string, tree skillfs.ID) bool
	// HotFile, when set, reports which files of the folder named skill a
	// content-only edit keeps hot (see ClassifyWith); nil means SKILL.md
	// at a folder's top.
	HotFile func(skill, path string) bool
	// Reading, when set, runs read, which calls the Load functions of a
	// batch of skills (a few hundred), so that the caller serves them all
	// from one read of its store (target opens one store.View per batch)
	// instead of one per skill. If it returns an error without running
	// read, export plans the batch without it (each Load then reports its
	// own failure).
	Reading func(read func() error) error
	// Root, when set, is a folder the target lies in (a project's root):
	// the target is then opened from Root one folder at a time without
	// following a link (safedir.OpenBeneath), so a link a project holds on
	// the way (.claude -> ~/.claude) refuses the export with a
	// *safedir.NotPlainError and nothing past it is written or made.
	Root string
	// Adopted, for Plan only, lists folders of the target that a step
	// before it would have adopted (AdoptFolders) had it not been a dry
	// run: the plan reads the target's record as that adoption would have
	// left it, so a dry run of capture then export says what the real
	// ones would do. Export ignores it.
	Adopted *Adoption
}

const (
	defaultGrace       = 30 * time.Second
	defaultLockTimeout = 30 * time.Second
)

func (o ExportOptions) withDefaults() ExportOptions {
	if o.Grace == 0 {
		o.Grace = defaultGrace
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = defaultLockTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// jobKind is the write export does for one skill.
type jobKind int

const (
	jobInstall jobKind = iota
	jobReplace
	jobRemove
)

type job struct {
	kind      jobKind
	name      string
	files     []skillfs.File
	tree      *Tree      // new tree (nil for removal; its entries hold no data)
	origin    Origin     // recorded with the new tree
	verified  skillfs.ID // what the folder held when it was checked
	link      string     // the link replaced (jobReplaceLink)
	result    *Result
	resultIdx int
	stage     string   // the staged folder's name in tmp/
	stageErr  error    // staging failed (run reports it)
	notes     []string // what staging wrote other than as stored (a link on Windows)
}

// Export writes skills into the target folder, one folder per skill, and
// removes the folders of skills it exported earlier that are not in skills
// any more. Each folder is switched atomically: a reader sees the old
// version or the new one, never a mix. Only skills whose version changed
// are touched. A folder export did not create, or one changed by someone
// since export wrote it, is never overwritten or removed: its Result says
// why it was skipped.
//
// The returned error is non-nil when the export could not run at all (the
// target cannot be locked or read, or its bookkeeping folder is refused:
// safedir.ErrNotPlain) or when writing some skill failed; the Report is
// valid in the second case.
func Export(ctx context.Context, target string, skills []Skill, opts ExportOptions) (*Report, error) {
	opts = opts.withDefaults()
	if err := checkSkillNames(skills); err != nil {
		return nil, err
	}
	b, lock, err := lockTarget(ctx, target, opts.Root, lockfile.Exclusive, opts.LockTimeout)
	if err != nil {
		return nil, fmt.Errorf("export to %s: %w", target, err)
	}
	defer b.close()
	defer lock.Release()
	rec, err := b.readRecord()
	if err != nil {
		return nil, fmt.Errorf("export to %s: %w", target, err)
	}
	x := &exporter{target: target, book: b, opts: opts, rec: rec, stageAsPlanned: true,
		report: &Report{Target: target, Atomic: true, Warnings: rec.warnings()}}
	if err := x.prepareDirs(); err != nil {
		return nil, fmt.Errorf("export to %s: %w", target, err)
	}
	// An edit that reached a retired folder after an earlier export moved
	// it is kept before anything else happens.
	x.sweepRetired()
	before := rec.origins()
	jobs, err := x.plan(ctx, skills)
	if err != nil {
		return nil, fmt.Errorf("export to %s: %w", target, err)
	}
	err = x.run(ctx, jobs)
	x.sweepRetired()
	sort.Slice(x.report.Results, func(i, j int) bool { return x.report.Results[i].Skill < x.report.Results[j].Skill })
	identify(x.report.Results, skills, before)
	return x.report, err
}

func checkSkillNames(skills []Skill) error {
	seen := make(map[string]bool, len(skills))
	for _, s := range skills {
		if err := CheckName(s.Name); err != nil {
			return err
		}
		if seen[s.Name] {
			return fmt.Errorf("skill %q: listed twice", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

// CheckName reports whether name can be a skill folder in a target: one
// path element, not hidden (hidden names are left to tools' bookkeeping).
func CheckName(name string) error {
	if name == "" || strings.ContainsAny(name, "/\\\x00") || strings.HasPrefix(name, ".") {
		return fmt.Errorf("skill %q: a folder name in a target must be one non-hidden path element", name)
	}
	return nil
}

type exporter struct {
	target string
	// book is the target's bookkeeping folder (nil for Plan, which
	// writes nothing); tmp and retired are its folders, opened by
	// prepareDirs.
	book         *book
	tmp, retired *safedir.Dir
	opts         ExportOptions
	rec          *record
	report       *Report
	dirty        bool // the record changed while planning
	// stageAsPlanned: stage each batch of jobs as soon as it is planned
	// (Export; Plan writes nothing).
	stageAsPlanned bool
}

// prepareDirs opens tmp/ and retired/, creating them, and empties tmp/:
// with the target lock held, anything staged there is left over from a
// crashed export. A rescued/ that is there must be a plain folder too, so
// a link there stops the export before anything moves.
func (x *exporter) prepareDirs() error {
	var err error
	if x.tmp, err = x.book.sub(tmpDir, true); err != nil {
		return err
	}
	if err := emptyDir(x.tmp); err != nil {
		return err
	}
	if x.retired, err = x.book.sub(retiredDir, true); err != nil {
		return err
	}
	if _, err := x.book.sub(rescuedDir, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// emptyDir removes everything in d, following no link.
func emptyDir(d *safedir.Dir) error {
	names, err := d.Names()
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := d.RemoveAll(n); err != nil {
			return err
		}
	}
	return nil
}

// add appends r to the report and returns its index.
func (x *exporter) add(r Result) int {
	x.report.Results = append(x.report.Results, r)
	return len(x.report.Results) - 1
}

// plan decides, per skill, what to write, comparing the set with the record
// and, for every folder it would touch, with what is on disk.
func (x *exporter) plan(ctx context.Context, skills []Skill) ([]*job, error) {
	x.report.Results = make([]Result, 0, len(skills)+len(x.rec.Skills))
	var jobs []*job
	inSet := make(map[string]bool, len(skills))
	for _, s := range skills {
		inSet[s.Name] = true
	}
	// In batches: the caller reads a batch's files from one snapshot of
	// its store (ExportOptions.Reading), and an export stages a batch and
	// drops its files before reading the next, so its memory does not
	// grow with the number of skills.
	staged := make(chan struct{})
	close(staged) // nothing staging yet
	for start := 0; start < len(skills); start += planBatch {
		batch := skills[start:min(start+planBatch, len(skills))]
		planned, err := x.planBatch(ctx, batch)
		if err != nil {
			<-staged
			for _, j := range jobs {
				x.dropStage(j)
			}
			return nil, err
		}
		if x.stageAsPlanned && len(planned) > 0 {
			staged = x.stageInBackground(staged, planned)
		}
		jobs = append(jobs, planned...)
	}
	<-staged
	names := make([]string, 0, len(x.rec.Skills))
	for name := range x.rec.Skills {
		if !inSet[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if j := x.planRemoval(name); j != nil {
			jobs = append(jobs, j)
		}
	}
	// A skill that moves to another folder (a new collision of short
	// names) appears in its new folder before its old one is switched
	// to another skill or removed: installs go first.
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].kind == jobInstall && jobs[j].kind != jobInstall })
	// The results slice no longer grows: point jobs at their entries.
	for _, j := range jobs {
		j.result = &x.report.Results[j.resultIdx]
	}
	return jobs, nil
}

// planUnchanged reports (as unchanged) skill s if export last wrote its
// tree and the folder is there: its files need not be read.
func (x *exporter) planUnchanged(s Skill) bool {
	if e := x.rec.Skills[s.Name]; e != nil && e.sameVersion(s) && x.present(s.Name) {
		x.add(Result{Skill: s.Name, Action: ActionUnchanged, OldTree: e.Tree, NewTree: e.Tree})
		return true
	}
	return false
}

// planOne plans skill s, which planUnchanged did not take, reading its
// files.
func (x *exporter) planOne(s Skill) *job {
	// A skill that cannot be read or written (a damaged object, a tree
	// a checkout cannot hold) fails alone; the target's other skills go on.
	files, err := s.files()
	var tree *Tree
	if err == nil {
		tree, err = NewTree(files)
	}
	if err != nil {
		var old skillfs.ID
		if e := x.rec.Skills[s.Name]; e != nil {
			old = e.Tree
		}
		x.add(Result{Skill: s.Name, Action: ActionFailed, OldTree: old, NewTree: s.Tree, Error: err.Error()})
		return nil
	}
	s.Files = files
	return x.planSkill(s, tree)
}

func (x *exporter) planSkill(s Skill, tree *Tree) *job {
	dst := filepath.Join(x.target, s.Name)
	entry := x.rec.Skills[s.Name]
	if entry == nil {
		if _, err := os.Lstat(dst); err == nil {
			return x.planUnrecorded(s, tree, dst)
		}
		i := x.add(Result{Skill: s.Name, Action: ActionCold, NewTree: tree.ID, Paths: Classify(nil, tree).Paths})
		return &job{kind: jobInstall, name: s.Name, files: s.Files, tree: tree, origin: s.Origin, resultIdx: i}
	}
	if entry.Tree == tree.ID && entry.Pending.IsZero() && x.present(s.Name) {
		// Unchanged skills are not read back: export stays proportional to
		// what changed. Status compares every folder's content.
		if entry.Origin != s.Origin {
			entry.Origin, x.dirty = s.Origin, true
		}
		x.add(Result{Skill: s.Name, Action: ActionUnchanged, OldTree: entry.Tree, NewTree: tree.ID})
		return nil
	}
	disk, err := ReadTree(dst)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Someone deleted the folder: install it again.
		i := x.add(Result{Skill: s.Name, Action: ActionCold, NewTree: tree.ID, Paths: Classify(nil, tree).Paths})
		return &job{kind: jobInstall, name: s.Name, files: s.Files, tree: tree, origin: s.Origin, resultIdx: i}
	case errors.Is(err, ErrLinkedFolder):
		x.add(Result{Skill: s.Name, Action: ActionLinked, OldTree: entry.Tree, NewTree: tree.ID, Error: err.Error()})
		return nil
	case err != nil:
		x.add(Result{Skill: s.Name, Action: ActionFailed, OldTree: entry.Tree, NewTree: tree.ID, Error: err.Error()})
		return nil
	case disk.ID == diskView(tree).ID:
		// Already there (an export that crashed after the switch, or a
		// capture of a local edit): adopt it without writing.
		x.rec.Skills[s.Name] = newRecordEntry(tree, time.Now()).with(s.Origin)
		x.dirty = true
		x.add(Result{Skill: s.Name, Action: ActionUnchanged, OldTree: entry.Tree, NewTree: tree.ID})
		return nil
	case !entry.holds(disk):
		x.add(Result{Skill: s.Name, Action: ActionLocallyModified, OldTree: entry.Tree, NewTree: tree.ID,
			DiskTree: disk.ID, Paths: Classify(diskView(entry.tree()), disk).Paths})
		return nil
	}
	var hot func(string) bool
	if x.opts.HotFile != nil {
		hot = func(p string) bool { return x.opts.HotFile(s.Name, p) }
	}
	change := ClassifyWith(disk, diskView(tree), hot)
	i := x.add(Result{Skill: s.Name, Action: Action(change.Class), OldTree: disk.ID, NewTree: tree.ID, Paths: change.Paths})
	return &job{kind: jobReplace, name: s.Name, files: s.Files, tree: tree, origin: s.Origin, verified: disk.ID, resultIdx: i}
}

// present reports whether the target has an entry named name; a folder
// someone deleted is installed again.
func (x *exporter) present(name string) bool {
	_, err := os.Lstat(filepath.Join(x.target, name))
	return err == nil
}

func (x *exporter) planRemoval(name string) *job {
	entry := x.rec.Skills[name]
	disk, err := ReadTree(filepath.Join(x.target, name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		delete(x.rec.Skills, name)
		x.dirty = true
		x.add(Result{Skill: name, Action: ActionRemoved, OldTree: entry.Tree})
		return nil
	case errors.Is(err, ErrLinkedFolder):
		x.add(Result{Skill: name, Action: ActionLinked, OldTree: entry.Tree, Error: err.Error()})
		return nil
	case err != nil:
		x.add(Result{Skill: name, Action: ActionFailed, OldTree: entry.Tree, Error: err.Error()})
		return nil
	case !entry.holds(disk):
		x.add(Result{Skill: name, Action: ActionLocallyModified, OldTree: entry.Tree, DiskTree: disk.ID,
			Paths: Classify(diskView(entry.tree()), disk).Paths})
		return nil
	}
	i := x.add(Result{Skill: name, Action: ActionRemoved, OldTree: disk.ID, Paths: Classify(disk, nil).Paths})
	return &job{kind: jobRemove, name: name, verified: disk.ID, resultIdx: i}
}
