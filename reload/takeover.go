package reload

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/skillstore/skillstore/internal/safedir"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Taking a target over: a folder export did not create is normally left
// alone (foreign, or linked when it is a symbolic link). Two cases are safe
// to take over, because nothing in them is lost:
//
//   - a real folder whose files are exactly the version export would
//     write is adopted: recorded as exported, nothing written;
//   - with ExportOptions.ReplaceLinks, a symbolic link export never wrote
//     that points at a copy skillstore manages (a skill folder another
//     target's record lists, or a folder holding a version of that skill),
//     as `npx skills` links ~/.claude/skills/NAME to ~/.agents/skills/NAME,
//     is replaced by the exported folder. Only the link is removed; the
//     folder it points at stays. A link a person put in place of a folder
//     export wrote (a dotfiles setup) is left alone even then.

const (
	// ActionAdopted: a folder export did not create already held this
	// version; it is now recorded as exported, nothing was written.
	ActionAdopted Action = "adopted"
	// ActionLinkReplaced: a symbolic link to a copy skillstore manages was
	// replaced by the exported folder (ExportOptions.ReplaceLinks). Link
	// is where it pointed; the folder there is left as it is.
	ActionLinkReplaced Action = "link-replaced"
)

// jobReplaceLink replaces a symbolic link with the staged folder.
const jobReplaceLink jobKind = jobRemove + 1

// planUnrecorded decides for skill s, whose folder dst exists but is not
// in the record: adopt it, replace it (a link, with ReplaceLinks), or
// report it foreign.
func (x *exporter) planUnrecorded(s Skill, tree *Tree, dst string) *job {
	disk, err := ReadTree(dst)
	switch {
	case err == nil && disk.ID == diskView(tree).ID:
		x.rec.Skills[s.Name] = newRecordEntry(tree, time.Now()).with(s.Origin)
		x.dirty = true
		x.add(Result{Skill: s.Name, Action: ActionAdopted, NewTree: tree.ID, DiskTree: disk.ID})
		return nil
	case errors.Is(err, ErrLinkedFolder):
		if j := x.planLinkReplace(s, tree, dst); j != nil {
			return j
		}
		// Reported with where it points, for the hint to name
		// --replace-links (an installer's link, left alone without it).
		link, _ := os.Readlink(dst)
		x.add(Result{Skill: s.Name, Action: ActionForeign, NewTree: tree.ID, DiskTree: disk.TreeID(), Link: link})
		return nil
	}
	x.add(Result{Skill: s.Name, Action: ActionForeign, NewTree: tree.ID, DiskTree: disk.TreeID()})
	return nil
}

// planLinkReplace plans replacing the link dst with s's folder when
// ReplaceLinks is on and the link points at a managed copy; else nil.
func (x *exporter) planLinkReplace(s Skill, tree *Tree, dst string) *job {
	if !x.opts.ReplaceLinks {
		return nil
	}
	link, err := os.Readlink(dst)
	if err != nil || !x.managedCopy(s.Origin.Identity(s.Name), dst, link, tree.ID) {
		return nil
	}
	i := x.add(Result{Skill: s.Name, Action: ActionLinkReplaced, NewTree: tree.ID, Link: link,
		Paths: Classify(nil, tree).Paths})
	return &job{kind: jobReplaceLink, name: s.Name, files: s.Files, tree: tree, origin: s.Origin, link: link, resultIdx: i}
}

// managedCopy reports whether the link dst (reading link) points at a
// copy of skill name that skillstore manages: a folder recorded by the
// export record of the target it sits in, or one holding the version
// export writes or, per ExportOptions.IsVersion, another version of it
// (name is the skill's store name).
func (x *exporter) managedCopy(name, dst, link string, want skillfs.ID) bool {
	if !filepath.IsAbs(link) {
		link = filepath.Join(filepath.Dir(dst), link)
	}
	resolved, err := filepath.EvalSymlinks(link) // a loop or a dangling link fails here
	if err != nil {
		return false
	}
	if info, err := os.Stat(resolved); err != nil || !info.IsDir() {
		return false
	}
	if rec, err := readRecord(filepath.Dir(resolved)); err == nil && rec.Skills[filepath.Base(resolved)] != nil {
		return true
	}
	disk, err := ReadTree(resolved)
	if err != nil {
		return false
	}
	return disk.ID == want || (x.opts.IsVersion != nil && x.opts.IsVersion(name, disk.ID))
}

// switchLink puts j's staged folder where the link was, if the link still
// points where it did when planned; otherwise the skill is reported
// linked and nothing changes.
func (x *exporter) switchLink(j *job, dst, stage loc) error {
	if cur, err := os.Readlink(dst.path()); err != nil || cur != j.link {
		j.result.Action, j.result.Paths = ActionLinked, nil
		j.result.Error = fmt.Sprintf("%s changed during export; left alone", dst.path())
		_ = removeAll(stage)
		return nil
	}
	err := exchangeDirs(stage, dst)
	switch {
	case err == nil:
		_ = stage.dir.Remove(stage.name) // the link, now at the staging path
	case errors.Is(err, safedir.ErrExchangeUnsupported):
		x.report.Atomic = false
		if err := dst.dir.Remove(dst.name); err != nil {
			return err
		}
		if err := moveNoReplace(stage, dst); err != nil {
			if !errors.Is(err, fs.ErrExist) {
				_ = os.Symlink(j.link, dst.path())
			}
			return err
		}
	default:
		return err
	}
	x.rec.Skills[j.name] = newRecordEntry(j.tree, time.Now()).with(j.origin)
	return nil
}
