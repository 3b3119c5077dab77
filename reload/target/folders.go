package target

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/skillstore/skillstore/internal/safedir"
	"github.com/skillstore/skillstore/store"
)

// Where a target's folder really is. A project's target belongs to its
// project: its folder is reached from the project's root one folder at a
// time, never through a symbolic link, because a cloned project can hold
// one (.claude -> ~/.claude) and a later pull of the project can swap one
// in. It is checked when the target is added, detected or installed, and
// before every export, status and capture; export then opens the folder
// the same way (reload.ExportOptions.Root), so a link swapped in between
// the check and the write is refused too. Two targets whose folders,
// links followed, are one folder or one inside the other would each remove
// what the other wrote, export after export: they are refused when added,
// and, when a link made them one later, at every export and status, until
// one of them is removed. A target refused is refused alone; the others
// go on.

// OutsideProjectError refuses a project's target whose folder is not
// reached inside its project: something on the way from the project's
// root (the project's .claude, its skills folder) is a symbolic link, a
// file or anything but a plain folder, or the folder is not below the
// root at all.
type OutsideProjectError struct {
	// Target is the target's name ("" for a folder not yet a target).
	Target       string
	Project, Dir string
	// Entry is what stands on the way, What what it is ("a symbolic link
	// to /home/me/.claude"); both empty when Dir is not below Project.
	Entry, What string
	// Other is the target whose folder the link leads to, if any.
	Other string
	// Recorded is set for a target already added, refused at export,
	// status or capture: the message leaves its name to the report and
	// says how to remove it.
	Recorded bool
}

func (e *OutsideProjectError) Error() string {
	// A target's export, status and capture name it already.
	where := ""
	switch {
	case e.Recorded:
	case e.Target != "":
		where = "target " + e.Target + ": "
	default:
		where = "folder " + e.Dir + ": "
	}
	if e.Entry == "" {
		return fmt.Sprintf("%s%s is not inside its project %s", where, e.Dir, e.Project)
	}
	msg := fmt.Sprintf("%s%s is %s, in project %s: a project's target is reached inside the project without following links, so skillstore writes and reads nothing through it", where, e.Entry, e.What, e.Project)
	if e.Other != "" {
		msg += "; it leads to the folder of target " + e.Other
	}
	msg += "; replace it with a plain folder"
	if e.Recorded {
		msg += fmt.Sprintf(", or remove the target ('skillstore target rm %s')", e.Target)
	}
	return msg
}

// CheckInProject reports whether the folder dir is reached from the
// project's root through plain folders only: an *OutsideProjectError
// names the link (or file) on the way. A part of dir that does not exist
// yet is no refusal: export makes it, following no link.
func CheckInProject(project, dir string) error {
	rel, err := filepath.Rel(project, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return &OutsideProjectError{Project: project, Dir: dir}
	}
	d, err := safedir.OpenBeneath(project, rel, false, 0)
	var np *safedir.NotPlainError
	switch {
	case err == nil:
		d.Close()
		return nil
	case errors.As(err, &np):
		return &OutsideProjectError{Project: project, Dir: dir, Entry: np.Path, What: np.What}
	case errors.Is(err, fs.ErrNotExist):
		return nil
	}
	return fmt.Errorf("folder %s in project %s: %w", dir, project, err)
}

// checkProject is CheckInProject for a project's target (nil for any
// other target); the error names the target of all whose folder a link
// on the way leads to.
func (t Target) checkProject(all []Target) error {
	if t.Project == "" {
		return nil
	}
	err := CheckInProject(t.Project, t.Dir)
	var out *OutsideProjectError
	if errors.As(err, &out) {
		out.Target = t.Name
		if out.Entry != "" {
			out.Other = sharer(t, all)
		}
	}
	return err
}

// SharedFolderError refuses a target whose folder, links followed, is
// another target's, or lies inside it or holds it.
type SharedFolderError struct {
	Target, Other Target
	// Real and OtherReal are the two folders with links resolved.
	Real, OtherReal string
}

func (e *SharedFolderError) Error() string {
	if e.Real == e.OtherReal {
		return fmt.Sprintf("targets %s (%s) and %s (%s) are one folder, %s: each export would remove what the other wrote; remove one of them ('skillstore target rm NAME')",
			e.Target.Name, e.Target.Dir, e.Other.Name, e.Other.Dir, e.Real)
	}
	inner, outer := e.Real, e.OtherReal
	if Inside(outer, inner) {
		inner, outer = outer, inner
	}
	return fmt.Sprintf("targets %s (%s) and %s (%s) overlap through a symbolic link: %s lies inside %s, so export and capture of one would see the other's skills; remove one of them ('skillstore target rm NAME')",
		e.Target.Name, e.Target.Dir, e.Other.Name, e.Other.Dir, inner, outer)
}

// realDir is dir with its symbolic links resolved, as far as it exists:
// the folder a write into dir reaches.
func realDir(dir string) string {
	probe, rest := filepath.Clean(dir), ""
	for {
		if r, err := filepath.EvalSymlinks(probe); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return dir
		}
		rest = filepath.Join(filepath.Base(probe), rest)
		probe = parent
	}
}

// sharedFolder is the *SharedFolderError of t and o, or nil.
func sharedFolder(t, o Target) error {
	rt, ro := realDir(t.Dir), realDir(o.Dir)
	if Inside(rt, ro) || Inside(ro, rt) {
		return &SharedFolderError{Target: t, Other: o, Real: rt, OtherReal: ro}
	}
	return nil
}

// checkFolders checks the folders of targets before they are exported,
// compared or captured: each project's target must be reached inside its
// project, and none may share a folder with another target (of targets,
// or recorded in s). It returns the refusal of each target refused, by
// name.
func checkFolders(ctx context.Context, s *store.Store, targets []Target) (map[string]error, error) {
	var recorded map[string]Target
	if err := s.View(ctx, func(*store.Reader) error {
		var err error
		recorded, err = read(s)
		return err
	}); err != nil {
		return nil, err
	}
	for _, t := range targets {
		recorded[t.Name] = t
	}
	all := sorted(recorded)
	outside := map[string]error{}
	for _, t := range all {
		if err := t.checkProject(all); err != nil {
			var out *OutsideProjectError
			if errors.As(err, &out) {
				out.Recorded = true
			}
			outside[t.Name] = err
		}
	}
	refused := map[string]error{}
	for _, t := range targets {
		if err := outside[t.Name]; err != nil {
			refused[t.Name] = err
			continue
		}
		for _, o := range all {
			// A target refused above writes nothing: it shares no folder.
			if o.Name == t.Name || outside[o.Name] != nil {
				continue
			}
			if err := sharedFolder(t, o); err != nil {
				refused[t.Name] = err
				break
			}
		}
	}
	return refused, nil
}

// sharer names the first target of all, other than t, whose folder t's
// reaches (links followed), or "".
func sharer(t Target, all []Target) string {
	for _, o := range all {
		if o.Name != t.Name && sharedFolder(t, o) != nil {
			return o.Name
		}
	}
	return ""
}
