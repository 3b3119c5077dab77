package projectlock

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// install records the lock's targets, pinned to the versions restored,
// exports them and compares each folder with the lock. On a dry run (the
// rehearsal of a frozen install) the records are checked and not
// written, the export is planned, and a folder the plan does not write
// must hold the lock's version already.
func (in *installer) install(ctx context.Context) error {
	existing, err := target.List(ctx, in.s, nil)
	if err != nil {
		return err
	}
	var targets []target.Target
	wants := map[string]map[string]string{}
	for _, lt := range in.lock.Targets {
		t, err := in.placeTarget(ctx, lt, existing)
		res := TargetResult{Name: lt.Name, Dir: lt.Dir, Added: err == nil && t.Name != "" && !hasTarget(existing, t.Name), Skills: []string{}}
		if err != nil {
			res.Error = err.Error()
			in.rep.Targets = append(in.rep.Targets, res)
			continue
		}
		wants[t.Name] = in.lockTrees(lt)
		res.Skills = sortedKeys(wants[t.Name])
		in.rep.Targets = append(in.rep.Targets, res)
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return nil
	}
	out, err := target.Export(ctx, in.s, targets, in.opts.Target)
	in.rep.Export = out
	var exportErr *target.ExportError
	if err != nil && !errors.As(err, &exportErr) {
		return err
	}
	for _, t := range targets {
		want := wants[t.Name]
		if in.s.IsDryRun() {
			want = unwritten(out, t.Name, want)
		}
		diffs, err := target.CheckTrees(ctx, in.s, t, want)
		if err != nil {
			return err
		}
		in.rep.Differences = append(in.rep.Differences, diffs...)
	}
	return nil
}

// unwritten is the part of want (skill to tree) that the planned export
// of target (a rehearsal's, on a dry run) does not write: those folders
// must hold the lock's tree already.
func unwritten(planned []target.Exported, name string, want map[string]string) map[string]string {
	out := maps.Clone(want)
	for _, e := range planned {
		if e.Target != name {
			continue
		}
		for _, r := range e.Results {
			switch r.Action {
			case reload.ActionHot, reload.ActionCold, reload.ActionAdopted, reload.ActionLinkReplaced:
				delete(out, r.Skill)
			}
		}
	}
	return out
}

func hasTarget(all []target.Target, name string) bool {
	for _, t := range all {
		if t.Name == name {
			return true
		}
	}
	return false
}

// lockTrees is what the lock says each skill of lt restored holds (a
// skill that could not be restored is reported already).
func (in *installer) lockTrees(lt Target) map[string]string {
	out := map[string]string{}
	for _, n := range lt.Skills {
		if v, ok := in.found[n]; ok {
			out[n] = v.Tree.String()
		}
	}
	return out
}

// placeTarget records the lock's target lt in the store, or updates the
// store's target of that folder, pinned to the versions found. Its folder
// must stay inside the project, through any symbolic link already there.
func (in *installer) placeTarget(ctx context.Context, lt Target, existing []target.Target) (target.Target, error) {
	dir := filepath.Join(in.opts.Project, filepath.FromSlash(lt.Dir))
	if err := target.CheckInProject(in.opts.Project, dir); err != nil {
		return target.Target{}, err
	}
	var cur *target.Target
	for i, t := range existing {
		switch {
		case t.Dir == dir:
			cur = &existing[i]
		case t.Name == lt.Name && cur == nil:
			return target.Target{}, fmt.Errorf("the name is taken by this store's target for %s: remove it ('skillstore target rm %s') or install in another store", t.Dir, t.Name)
		}
	}
	pins := in.pins(ctx, lt, dir, cur)
	if cur != nil {
		if cur.IsMarketplace() {
			return target.Target{}, fmt.Errorf("this store's target %s at %s is a %s: a lock restores skills folders only", cur.Name, dir, cur.Kind)
		}
		if err := target.Pin(ctx, in.s, cur.Name, lt.selection(), pins); err != nil {
			return target.Target{}, err
		}
		t := *cur
		t.Skills, t.Except, t.Pins = lt.Select, lt.Except, pins
		return t, nil
	}
	t := target.Target{Name: lt.Name, Dir: dir, Project: in.opts.Project, Skills: lt.Select, Except: lt.Except, Pins: pins}
	if err := target.Add(ctx, in.s, t); err != nil {
		return target.Target{}, err
	}
	return t, nil
}

// pins are the versions lt holds: the lock's where the store has them. A
// skill the install could not restore keeps what the target holds now
// (its pin; for a target exporting the published versions, the published
// one; else what export last wrote in its folder, by whichever store), so
// that a part that failed never removes a folder.
func (in *installer) pins(ctx context.Context, lt Target, dir string, cur *target.Target) map[string]string {
	pins := map[string]string{}
	var published map[string]store.Hash
	var written map[string]store.Hash
	folders := target.Folders(lt.Skills)
	for _, n := range lt.Skills {
		if v, ok := in.found[n]; ok {
			pins[n] = v.Tree.String()
			continue
		}
		switch {
		case cur != nil && cur.Pins != nil:
			if tree, ok := cur.Pins[n]; ok {
				pins[n] = tree
				continue
			}
		case cur != nil:
			if published == nil {
				published = in.published(ctx)
			}
			if tree, ok := published[n]; ok && cur.Wants(n) {
				pins[n] = tree.String()
				continue
			}
		}
		if written == nil {
			written, _ = reload.Exported(dir)
		}
		if tree, ok := written[folders[n]]; ok {
			pins[n] = tree.String()
		}
	}
	return pins
}

// published maps each active skill of the store to its latest tree.
func (in *installer) published(ctx context.Context) map[string]store.Hash {
	out := map[string]store.Hash{}
	infos, err := in.s.List(ctx, false)
	if err != nil {
		return out
	}
	for _, info := range infos {
		if info.Status == store.StatusActive {
			out[info.Name] = info.Tree
		}
	}
	return out
}
