package plugins

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/store"
)

// projectOnlyName is the local file (never pushed) naming the plugins that
// a project's lock file added ('skillstore install'), each with the
// projects whose locks asked for it. Such a plugin's skills are exported
// to those projects' targets only, never to the user's other targets
// (~/.claude/skills and the like): a lock is a file whoever wrote the
// project controls, and it must not choose what every agent of the user
// loads. A plugin the user adds (plugin add, even of one listed here) is
// the store's, and leaves the file.
const projectOnlyName = "project-plugins.json"

// ProjectOnly maps each plugin that is exported only to some projects'
// targets to those projects' roots (see projectOnlyName); a plugin not in
// it goes to every target.
func ProjectOnly(r *store.Reader) (map[string][]string, error) {
	return readRecordMap[[]string](r.Store().LocalPath(projectOnlyName), "project plugins")
}

// ProjectOnlyPath is the file ProjectOnly reads: a server that keeps what
// it read watches it.
func ProjectOnlyPath(s *store.Store) string { return s.LocalPath(projectOnlyName) }

// AddProjectOnly records that plugin id is exported to the targets of the
// project at root (besides those of the projects recorded already) and to
// no other. A dry run records nothing.
func AddProjectOnly(ctx context.Context, s *store.Store, id, root string) error {
	return AddProjectOnlyAll(ctx, s, root, id)
}

// AddProjectOnlyAll is [AddProjectOnly] for several plugins at once: one
// rewrite of the file.
func AddProjectOnlyAll(ctx context.Context, s *store.Store, root string, ids ...string) error {
	return updateProjectOnly(ctx, s, func(m map[string][]string) {
		root = filepath.Clean(root)
		for _, id := range ids {
			if !slices.Contains(m[id], root) {
				m[id] = append(m[id], root)
				slices.Sort(m[id])
			}
		}
	})
}

// DropProjectOnly makes the plugins ids (those listed among them) the
// store's: exported to every target that selects their skills.
func DropProjectOnly(ctx context.Context, s *store.Store, ids ...string) error {
	return updateProjectOnly(ctx, s, func(m map[string][]string) {
		for _, id := range ids {
			delete(m, id)
		}
	})
}

// updateProjectOnly rewrites the file with change applied, when change
// changed it, under the store's write lock.
func updateProjectOnly(ctx context.Context, s *store.Store, change func(map[string][]string)) error {
	if s.IsDryRun() {
		return nil
	}
	return s.Update(ctx, func(tx *store.Tx) error { return writeProjectOnly(s, change) })
}

func writeProjectOnly(s *store.Store, change func(map[string][]string)) error {
	path := s.LocalPath(projectOnlyName)
	m, err := readRecordMap[[]string](path, "project plugins")
	if err != nil {
		return err
	}
	before, _ := json.Marshal(m)
	change(m)
	after, _ := json.Marshal(m)
	if string(before) == string(after) {
		return nil
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o644)
}

// renameProjectOnly gives plugin nu the projects of old, inside the
// transaction that renames it (a marketplace renamed the plugin: it is
// still the lock's). It is written before the rename commits and keeps
// old's entry, so that neither id goes to every target whatever happens
// in between; a stale entry only keeps a plugin of that id out of other
// targets until the user adds it.
func renameProjectOnly(s *store.Store, old, nu string) error {
	if s.IsDryRun() {
		return nil
	}
	return writeProjectOnly(s, func(m map[string][]string) {
		for _, root := range m[old] {
			if !slices.Contains(m[nu], root) {
				m[nu] = append(m[nu], root)
			}
		}
		slices.Sort(m[nu])
	})
}
