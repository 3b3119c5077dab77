package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// ErrNotOneSkill is matched (errors.Is) when checkout --force is asked to
// replace a folder that holds more than one skill's files: an agent's
// skills folder, a project, a home folder.
var ErrNotOneSkill = errors.New("does not hold one skill's files")

// maxReplaceEntries bounds the walk of a folder checkout --force would
// replace: a skill folder holds a few dozen files, and a folder holding
// more than this is not one.
const maxReplaceEntries = 20000

// checkoutMarkers are the files at a folder's top that make it one
// checked-out unit: a skill's SKILL.md, a plugin's manifest (its parts).
var checkoutMarkers = []string{skillmd.FileName, ".claude-plugin/plugin.json", ".codex-plugin/plugin.json"}

// checkReplaceable reports whether the non-empty folder dir (abs) may be
// replaced by a checkout of files. --force deletes what the folder held,
// so it must be one skill's folder, nothing more:
//   - it holds, as a file, a marker of the unit being written (SKILL.md,
//     or the plugin manifest of a plugin's parts);
//   - no other skill sits below it (a SKILL.md in a subfolder that the
//     version does not have there), and neither a target's bookkeeping
//     folder (.skillstore) nor a repository (.git);
//   - it holds at most maxReplaceEntries entries.
//
// A target folder, a project, a home folder all fail one of these.
func checkReplaceable(dir, abs string, files []File) error {
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	written := make(map[string]bool, len(files))
	for _, f := range files {
		written[f.Path] = true
	}
	refuse := func(why string) error {
		return fmt.Errorf("%s %w: it holds %s; --force replaces a folder's whole content, so it only replaces a skill's own folder: pick an empty folder", dir, ErrNotOneSkill, why)
	}
	marked := false
	for _, m := range checkoutMarkers {
		if !written[m] {
			continue
		}
		if info, err := os.Lstat(filepath.Join(abs, filepath.FromSlash(m))); err == nil && info.Mode().IsRegular() {
			marked = true
		}
	}
	if !marked {
		return refuse("no " + skillmd.FileName + " (or plugin manifest) of its own")
	}
	entries := 0
	err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == abs {
			return nil
		}
		rel, err := filepath.Rel(abs, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if entries++; entries > maxReplaceEntries {
			return refuse(fmt.Sprintf("more than %d entries", maxReplaceEntries))
		}
		switch name := d.Name(); {
		case d.IsDir() && (name == skillfs.BookkeepingDir || name == ".git"):
			return refuse(rel + ", a target's bookkeeping folder or a repository")
		case !d.IsDir() && name == skillmd.FileName && path.Dir(rel) != "." && !written[rel]:
			return refuse("another skill (" + rel + ")")
		}
		return nil
	})
	return err
}
