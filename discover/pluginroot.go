package discover

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/internal/pluginfmt"
)

// pluginManifests are the files that make a folder a plugin or a
// marketplace in some agent's dialect: its skill folders are then the
// ones its layout names.
var pluginManifests = pluginfmt.ManifestFiles()

// pluginSkills lists the skill folders of t when t is a plugin or a
// marketplace (it holds one of pluginManifests), read with pluginfmt.Read:
// the one reader of layouts, which plugin add and sync use too, so that
// discover and import find the skills the plugin's manifest names (and no
// draft beside them). The walk calls it only for a folder listing
// a repository marker (repoMarkers), so other folders cost nothing more. ok
// is false when t holds no manifest; a manifest that cannot be read is a
// warning, and t is then walked like any folder.
func (w *rootWalk) pluginSkills(t dirTask) (tasks []dirTask, ok bool) {
	found := false
	for _, m := range pluginManifests {
		if info, err := os.Lstat(filepath.Join(t.path, filepath.FromSlash(m))); err == nil && info.Mode().IsRegular() {
			found = true
			break
		}
	}
	if !found {
		return nil, false
	}
	root, err := os.OpenRoot(t.path)
	if err != nil {
		w.warn(t.path, "cannot read the plugin: %v; its folders are walked instead", unwrapPathError(err))
		return nil, false
	}
	defer root.Close()
	fsys, isPluginFS := root.FS().(pluginfmt.PluginFS)
	if !isPluginFS {
		return nil, false
	}
	layout, err := pluginfmt.Read(fsys, pluginfmt.Options{RootName: filepath.Base(t.path)})
	if err != nil {
		w.warn(t.path, "plugin layout: %v; its folders are walked instead", err)
		return nil, false
	}
	seen := map[string]bool{}
	for _, p := range layout.Plugins {
		for _, sk := range p.Skills {
			if seen[sk.Path] || sk.Path == "." {
				continue
			}
			seen[sk.Path] = true
			rel := filepath.FromSlash(sk.Path)
			tasks = append(tasks, dirTask{
				path:      filepath.Join(t.path, rel),
				real:      filepath.Join(t.real, rel),
				rel:       joinRel(t.rel, sk.Path),
				depth:     t.depth + 1 + strings.Count(sk.Path, "/"),
				onlySkill: true,
				viaLink:   t.viaLink,
				inRepo:    true,
			})
		}
	}
	return tasks, true
}
