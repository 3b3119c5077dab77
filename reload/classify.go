package reload

import (
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// Class says what a running agent must do about a change to a skill.
type Class string

const (
	// Unchanged: the old and new trees are the same.
	Unchanged Class = "unchanged"
	// Hot: only the text of SKILL.md changed; the agent re-reads it.
	Hot Class = "hot"
	// Cold: anything else changed (files added or removed, another file's
	// content, a mode or type, a symlink, a first install or a removal);
	// the agent must restart to pick it up.
	Cold Class = "cold"
)

// Change is the difference between two versions of one skill folder.
type Change struct {
	Class Class
	// Paths lists every path that was added, removed or changed, sorted.
	Paths []string
}

// Classify compares the old and new trees of one skill folder. A nil tree
// means the skill is not there: nil → tree is a first install, tree → nil a
// removal, both cold. Symlinks count as entries like files; Ignored paths
// (skillstore's bookkeeping, editor temporary files) never count.
func Classify(old, new *Tree) Change { return ClassifyWith(old, new, nil) }

// ClassifyWith is Classify where hot, when set, reports which files a
// content-only edit keeps hot (default: SKILL.md at the folder's top). A
// folder holding several skills, such as a plugin's, has one SKILL.md per
// skill.
func ClassifyWith(old, new *Tree, hot func(path string) bool) Change {
	if hot == nil {
		hot = func(p string) bool { return p == skillmd.FileName }
	}
	if old == nil && new == nil {
		return Change{Class: Unchanged}
	}
	if old != nil && new != nil && old.ID == new.ID && !old.ID.IsZero() {
		return Change{Class: Unchanged}
	}
	var oldEntries, newEntries []skillfs.File
	if old != nil {
		oldEntries = old.Entries
	}
	if new != nil {
		newEntries = new.Entries
	}
	var paths []string
	isHot := old != nil && new != nil
	i, j := 0, 0
	for i < len(oldEntries) || j < len(newEntries) {
		var o, n *skillfs.File
		switch {
		case j == len(newEntries) || (i < len(oldEntries) && oldEntries[i].Path < newEntries[j].Path):
			o = &oldEntries[i]
			i++
		case i == len(oldEntries) || newEntries[j].Path < oldEntries[i].Path:
			n = &newEntries[j]
			j++
		default:
			o, n = &oldEntries[i], &newEntries[j]
			i++
			j++
		}
		p := pathOf(o, n)
		if skillfs.Ignored(p) || (o != nil && n != nil && o.Mode == n.Mode && o.ID == n.ID) {
			continue
		}
		paths = append(paths, p)
		if !isHotEdit(o, n, hot) {
			isHot = false
		}
	}
	switch {
	case len(paths) == 0 && old != nil && new != nil:
		return Change{Class: Unchanged}
	case isHot:
		return Change{Class: Hot, Paths: paths}
	}
	return Change{Class: Cold, Paths: paths}
}

func pathOf(o, n *skillfs.File) string {
	if o != nil {
		return o.Path
	}
	return n.Path
}

// isHotEdit reports whether an entry change is a content edit of a file hot
// accepts (SKILL.md) that keeps it the same kind of regular file.
func isHotEdit(o, n *skillfs.File, hot func(string) bool) bool {
	return o != nil && n != nil && hot(o.Path) && o.Mode == n.Mode && o.Mode != skillfs.Symlink
}
