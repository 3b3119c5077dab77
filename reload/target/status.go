package target

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

// SkillStatus is one exported skill of one target.
type SkillStatus struct {
	Target string `json:"target"`
	reload.SkillStatus
	// Outdated is set when the published version differs from the exported
	// one and the folder is clean, or the skill moves to another folder
	// (see flat.go): the next export updates it.
	Outdated bool `json:"outdated,omitempty"`
}

// folder is where the skill is in the target.
func (st SkillStatus) folder() string {
	if st.Folder != "" {
		return st.Folder
	}
	return st.Skill
}

// statusCacheFile is status's stat cache of the target folders, in the
// store's own folder (see reload.StatusCached).
const statusCacheFile = "status-statcache"

// Status compares every skill folder export wrote into each target with
// what is on disk, and with the published version.
func Status(ctx context.Context, s *store.Store, targets []Target, opts Options) ([]SkillStatus, error) {
	heads := map[string]store.Hash{}
	active := map[string]store.Hash{}
	err := s.View(ctx, func(r *store.Reader) error {
		infos, err := r.List(false)
		for _, info := range infos {
			heads[info.Name] = info.Tree
			if info.Status == store.StatusActive {
				active[info.Name] = info.Tree
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	refused, err := checkFolders(ctx, s, targets)
	if err != nil {
		return nil, err
	}
	// Derived data, this machine's own: a missing or stale cache costs
	// reads, and a cache that cannot be saved (a read-only store) too.
	cache := store.LoadStatCache(s.LocalPath(statusCacheFile))
	if !s.IsDryRun() { // a dry run (check) writes nothing, not even a cache
		defer func() { _ = cache.Save() }()
	}
	var out []SkillStatus
	var failed []TargetError
	for _, t := range targets {
		if err := refused[t.Name]; err != nil {
			// Export refuses it too: its folder is not compared or read.
			failed = append(failed, TargetError{Target: t.Name, Err: err})
			continue
		}
		if t.IsMarketplace() {
			// Its folders are plugins, not skills: export reports a plugin
			// folder edited in place as locally-modified and leaves it alone.
			continue
		}
		sts, err := reload.StatusCached(ctx, t.Dir, opts.LockTimeout, cache)
		if err != nil {
			// This target alone: a refused bookkeeping folder, a busy lock.
			failed = append(failed, TargetError{Target: t.Name, Err: err})
			continue
		}
		var names []string
		for n := range active {
			if t.Wants(n) {
				names = append(names, n)
			}
		}
		p := place(names)
		out = append(out, foreignFolders(t, p, active, sts, renamedTree(ctx, s))...)
		for _, n := range sortedKeys(p.conflicts) {
			out = append(out, SkillStatus{Target: t.Name, SkillStatus: reload.SkillStatus{Skill: n, State: reload.StateConflict,
				Error: "not exported to this flat target: " + p.conflicts[n]}})
		}
		for _, st := range sts {
			ts := SkillStatus{Target: t.Name, SkillStatus: st}
			if _, managed := heads[st.Skill]; st.Folder == "" && st.State != reload.StateRaced && !managed {
				// Recorded before export knew plugins' names, and no
				// managed skill has the folder's name: the placement says
				// whose folder it is (a plugin's skill).
				if n := p.storeName(st.Skill); n != "" && n != st.Skill {
					ts.Skill, ts.Folder = n, st.Skill
				}
			}
			base := st.Exported
			if !st.StoreTree.IsZero() {
				base = st.StoreTree
			}
			if head, ok := heads[ts.Skill]; ok && st.State == reload.StateClean {
				moved := p.folder[ts.Skill] != "" && p.folder[ts.Skill] != ts.folder()
				ts.Outdated = head != base || moved
			}
			out = append(out, ts)
		}
	}
	if len(failed) > 0 {
		return out, &StatusError{Failed: failed}
	}
	return out, nil
}

// StatusError lists the targets whose folders Status could not compare;
// the statuses of the other targets are returned with it.
type StatusError struct {
	Failed []TargetError
}

func (e *StatusError) Error() string {
	parts := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		parts[i] = fmt.Sprintf("target %s: %v", f.Target, f.Err)
	}
	return strings.Join(parts, "; ")
}

// Unwrap gives the targets' errors.
func (e *StatusError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		errs[i] = f.Err
	}
	return errs
}

// renamedTree computes the tree export writes for a renamed skill: the
// store's version at tree with its frontmatter name set to folder.
func renamedTree(ctx context.Context, s *store.Store) func(tree skillfs.ID, folder string) (skillfs.ID, error) {
	return func(tree skillfs.ID, folder string) (skillfs.ID, error) {
		var files []skillfs.File
		err := s.View(ctx, func(r *store.Reader) error {
			var err error
			files, err = r.LoadFiles(tree)
			return err
		})
		if err != nil {
			return skillfs.ID{}, err
		}
		if files, err = renameSkill(files, folder); err != nil {
			return skillfs.ID{}, err
		}
		t, err := reload.NewTree(files)
		if err != nil {
			return skillfs.ID{}, err
		}
		return t.ID, nil
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
