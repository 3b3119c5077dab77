package pluginfmt

import (
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// A source may hold skill folders that its layout does not reach: a
// collection beside a marketplace that lists other folders, a
// .agents/skills/ of the repository's own, SKILL.md folders inside a
// plugin but outside what its manifest names. [Unreached] finds them, so
// that plugin add names them instead of leaving them out without a word,
// and [UnreachedFolders] says which SOURCE#FOLDER/ takes them.

// maxUnreachedDepth bounds how deep [Unreached] looks for skill folders,
// and maxUnreachedFolders how many folders it lists: a huge local folder
// costs a bounded walk, not minutes.
const (
	maxUnreachedDepth   = 12
	maxUnreachedFolders = 50_000
)

// Unreached lists the folders of fsys holding a SKILL.md that no plugin
// of layout reaches: neither one of its skills (or skill folders left out
// with a reason) nor inside one. It lists folders only (for a git tree,
// tree objects: no file is read), never follows a symlink, skips what
// skillfs.IgnoredDir names (.git, node_modules, ...) and looks no deeper
// than maxUnreachedDepth folders, nor past maxUnreachedFolders of them. A
// skill folder's subfolders are its own: they are not looked into.
// Sorted.
func Unreached(fsys PluginFS, layout *Layout) ([]string, error) {
	reached := map[string]bool{}
	for _, p := range layout.Plugins {
		for _, d := range append(p.Skills[:len(p.Skills):len(p.Skills)], p.LeftOut...) {
			reached[path.Clean(d.Path)] = true
		}
	}
	var out []string
	listed := 0
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		if reached[dir] || listed >= maxUnreachedFolders {
			return nil
		}
		listed++
		entries, err := fsys.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.Name() == skillmd.FileName && e.Type().IsRegular() {
				if dir != "." {
					out = append(out, dir)
				}
				return nil
			}
		}
		if depth >= maxUnreachedDepth {
			return nil
		}
		for _, e := range entries {
			if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 || skillfs.IgnoredDir(e.Name()) {
				continue
			}
			if err := walk(path.Join(dir, e.Name()), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(".", 0); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// UnreachedFolder is a folder that takes skill folders [Unreached] found:
// plugin add SOURCE#Folder/ (or --path Folder) adds Skills of them.
type UnreachedFolder struct {
	Folder string `json:"folder"`
	Skills int    `json:"skills"`
}

// UnreachedFolders are the folders that take the skill folders dirs in:
// a folder of skill folders (the flat layout reads each <name>/SKILL.md
// of it), or the skill folder itself where its parent is the source's
// top, holds a manifest or a skills/ folder (a layout the flat one gives
// way to), or the folder's name is hidden (the flat layout leaves those
// out). Most skills first, then by name.
func UnreachedFolders(fsys PluginFS, dirs []string) []UnreachedFolder {
	count := map[string]int{}
	for _, d := range dirs {
		parent := path.Dir(d)
		if parent == "." || strings.HasPrefix(path.Base(d), ".") || path.Base(d) == defaultSkillsDir || holdsManifest(fsys, parent) {
			parent = d
		}
		count[parent]++
	}
	out := make([]UnreachedFolder, 0, len(count))
	for f, n := range count {
		out = append(out, UnreachedFolder{Folder: f, Skills: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Skills != out[j].Skills {
			return out[i].Skills > out[j].Skills
		}
		return out[i].Folder < out[j].Folder
	})
	return out
}

// holdsManifest reports whether dir holds a marketplace file, a plugin
// manifest of some dialect, or a skills/ folder: a layout that the flat
// one gives way to.
func holdsManifest(fsys PluginFS, dir string) bool {
	for _, f := range append(ManifestFiles(), defaultSkillsDir) {
		if _, err := fsys.Lstat(path.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}
