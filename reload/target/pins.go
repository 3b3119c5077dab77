package target

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/skillstore/skillstore/internal/skillsel"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

// A pinned target holds exactly the versions a project's lock file names
// (package projectlock): Target.Pins maps each store name to the tree of
// the version the target holds, and export writes those instead of the
// latest published ones, so a sync that publishes a new version leaves the
// project's folders as the lock says until 'skillstore lock' moves it.
// A pinned tree is always a version (or upstream snapshot) of its skill in
// the store: install finds it there, or fetches it, before it pins.

// pinnedSkills is what export writes into t: the versions it is pinned
// to, when it is pinned, else the published ones. Their files are read
// through reads, like the published skills'.
func (t Target) pinnedSkills(published []reload.Skill, reads *storeReads) []reload.Skill {
	if t.Pins == nil {
		return published
	}
	names := make([]string, 0, len(t.Pins))
	for n := range t.Pins {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]reload.Skill, 0, len(names))
	for _, n := range names {
		tree, ok := store.ParseHash(t.Pins[n])
		if !ok {
			continue // the records file is ours; a bad entry is not exported
		}
		out = append(out, reload.Skill{Name: n, Tree: tree, Load: func() ([]store.File, error) { return reads.load(tree) }})
	}
	return out
}

// Pin sets the selection and the pins of the target called name, which
// must exist (see Target.Pins; nil pins unpins it).
func Pin(ctx context.Context, s *store.Store, name string, sel skillsel.Selection, pins map[string]string) error {
	return s.Update(ctx, func(tx *store.Tx) error {
		all, err := load(tx)
		if err != nil {
			return err
		}
		t, ok := all[name]
		if !ok {
			return &UnknownError{Name: name}
		}
		t.Skills, t.Except, t.Pins = sel.Only, sel.Except, pins
		all[name] = t
		return save(s, all)
	})
}

// PinMismatch is a pinned skill whose folder in its target does not hold
// the pinned version.
type PinMismatch struct {
	Target string `json:"target"`
	Skill  string `json:"skill"`
	Folder string `json:"folder,omitempty"`
	// Problem says what the folder holds instead.
	Problem string `json:"problem"`
}

// CheckTrees compares the folder of each skill of want (store name to the
// tree of the version expected) in t with that version, tree by tree (the
// folder is read whole, as status reads an edited one), and lists every
// folder that does not hold exactly that version.
func CheckTrees(ctx context.Context, s *store.Store, t Target, want map[string]string) ([]PinMismatch, error) {
	if t.IsMarketplace() {
		return nil, fmt.Errorf("target %s: a marketplace target cannot be pinned", t.Name)
	}
	var names []string
	var out []PinMismatch
	for _, n := range sortedKeys(want) {
		if t.Wants(n) {
			names = append(names, n)
		} else {
			out = append(out, PinMismatch{Target: t.Name, Skill: n, Problem: "the target's skill patterns leave it out"})
		}
	}
	p := place(names)
	renamed := renamedTree(ctx, s)
	for _, n := range names {
		miss := PinMismatch{Target: t.Name, Skill: n}
		folder, ok := p.folder[n]
		if !ok {
			miss.Problem = "no folder in this flat target: " + p.conflicts[n]
			out = append(out, miss)
			continue
		}
		miss.Folder = folder
		tree, _ := store.ParseHash(want[n])
		if p.renamed[n] {
			var err error
			if tree, err = renamed(tree, folder); err != nil {
				miss.Problem = fmt.Sprintf("its version cannot be read from the store: %v", err)
				out = append(out, miss)
				continue
			}
		}
		disk, err := reload.ReadTree(filepath.Join(t.Dir, folder))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			miss.Problem = "missing"
		case err != nil:
			miss.Problem = err.Error()
		case disk.ID != tree:
			miss.Problem = fmt.Sprintf("holds other files (tree %s, the lock's is %s)", short(disk.ID.String()), short(tree.String()))
		default:
			continue
		}
		out = append(out, miss)
	}
	return out, nil
}

func short(id string) string { return id[:min(12, len(id))] }

// repinCaptured moves the pin of each skill captured in a pinned target
// to the version capture recorded: the folder keeps the person's edit
// (export would otherwise put the pinned version back over it), and the
// target now differs from its lock file until 'skillstore lock' records
// the edit (install --frozen says so meanwhile).
func repinCaptured(ctx context.Context, s *store.Store, targets []Target, jobs []*captureJob) {
	byName := map[string]Target{}
	for _, t := range targets {
		byName[t.Name] = t
	}
	moved := map[string]map[string]string{}
	for _, j := range jobs {
		t, ok := byName[j.st.Target]
		if !ok || t.Pins == nil || j.res.Raced || (j.res.Outcome != Captured && j.res.Outcome != Unchanged) {
			continue
		}
		tree := j.stored // the version's tree (a renamed folder's name put back)
		if tree.IsZero() {
			continue
		}
		if moved[t.Name] == nil {
			moved[t.Name] = map[string]string{}
		}
		moved[t.Name][j.st.Skill] = tree.String()
	}
	for name, pins := range moved {
		t := byName[name]
		next := make(map[string]string, len(t.Pins))
		for k, v := range t.Pins {
			next[k] = v
		}
		for k, v := range pins {
			next[k] = v
		}
		if err := Pin(ctx, s, name, t.Selection(), next); err != nil {
			s.Logger().Debug("pin of a captured skill not moved", "target", name, "err", err)
		}
	}
}
