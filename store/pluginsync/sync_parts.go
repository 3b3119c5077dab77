package pluginsync

import (
	"fmt"
	"slices"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// Sync of a plugin's parts (plugin_parts.go): the unit goes through the
// very steps of a skill (syncSkillTo: the four cases, candidates, the
// safety check), with the findings of safety.PluginFindings added to the
// check, and one case of its own: parts that vanish upstream.

// syncParts brings plugin p's parts unit up to date with its upstream and
// records the outcome in pr.Parts. The error is for the plugin's report.
func syncParts(tx *store.Tx, p *plugins.Plugin, up *plugins.Upstream, opts Options, cc *commitCache, pr *PluginReport) error {
	name := store.PluginPartsUnit(p.ID)
	_, hasUnit := tx.Ref(store.SkillRef(name))
	sk, err := plugins.ReadParts(tx, p, up, hasUnit)
	if err != nil {
		pr.Parts = &SkillReport{Skill: name, Error: err.Error()}
		return fmt.Errorf("plugin parts: %w", err)
	}
	if sk == nil {
		if !hasUnit {
			return nil
		}
		sr, err := partsRemoved(tx, p, up)
		if err != nil {
			pr.Parts = &SkillReport{Skill: name, Error: err.Error()}
			return fmt.Errorf("plugin parts: %w", err)
		}
		pr.Parts = sr
		return nil
	}
	if _, ok := tx.Ref(store.UpstreamRef(p.ID, store.PluginPartsName)); hasUnit && !ok {
		if err := restorePartsUpstream(tx, p.ID); err != nil {
			pr.Parts = &SkillReport{Skill: name, Error: err.Error()}
			return fmt.Errorf("plugin parts: %w", err)
		}
	}
	var before store.Hash
	if head, ok := tx.Ref(store.SkillRef(name)); ok {
		if c, err := cc.get(head); err == nil {
			before = c.Tree
		}
	}
	sr := syncSkill(tx, p, up, sk, opts, cc)
	sr.Skill = name
	pr.Parts = &sr
	if sr.Error != "" {
		return fmt.Errorf("plugin parts: %s", sr.Error)
	}
	if sr.Changed() && sr.Classification != ClassAlreadyApplied && sr.Classification != ClassLeftOut {
		after := sk.Tree
		if h, ok := store.ParseHash(sr.Candidate); ok {
			if c, err := cc.get(h); err == nil {
				after = c.Tree
			}
		}
		sr.Paths = changedPaths(tx, before, after)
	}
	return nil
}

// changedPaths lists the paths that differ between two trees (zero: none),
// sorted; nil when a tree cannot be read (the list is for people only).
func changedPaths(tx *store.Tx, old, new store.Hash) []string {
	var a, b []store.File
	var err error
	if !old.IsZero() {
		if a, err = tx.Files(old); err != nil {
			return nil
		}
	}
	if b, err = tx.Files(new); err != nil {
		return nil
	}
	am, bm := store.FileMap(a), store.FileMap(b)
	var out []string
	for _, f := range a {
		if g, ok := bm[f.Path]; !ok || g.ID != f.ID || g.Mode != f.Mode {
			out = append(out, f.Path)
		}
	}
	for _, f := range b {
		if _, ok := am[f.Path]; !ok {
			out = append(out, f.Path)
		}
	}
	slices.Sort(out)
	return out
}

// partsRemoved handles a plugin whose parts are gone upstream while the
// store has a unit: like a skill removed upstream, the published unit
// stays. An empty snapshot records the removal once, so the next sync
// does not report it again (nil report then).
func partsRemoved(tx *store.Tx, p *plugins.Plugin, up *plugins.Upstream) (*SkillReport, error) {
	name := store.PluginPartsUnit(p.ID)
	upRef := store.UpstreamRef(p.ID, store.PluginPartsName)
	prevU, hasPrevU := tx.Ref(upRef)
	empty := &plugins.UpstreamSkill{Name: store.PluginPartsName, Path: up.Layout.Root, Files: []store.File{}, Parts: true}
	var err error
	if empty.Tree, err = store.TreeHash(nil); err != nil {
		return nil, err
	}
	if hasPrevU {
		c, err := tx.Commit(prevU)
		if err != nil {
			return nil, err
		}
		if c.Tree == empty.Tree {
			return nil, nil
		}
	}
	u, err := writeSnapshot(tx, p, up, &skillIn{UpstreamSkill: empty}, prevU, hasPrevU)
	if err != nil {
		return nil, err
	}
	return &SkillReport{Skill: name, Classification: ClassRemoved, Upstream: u.String()}, nil
}

// restorePartsUpstream points a parts unit's upstream ref, gone with a
// plugin rm, back at the last upstream snapshot its history took in, so
// that a plugin added again classifies its upstream against what was
// accepted (an unchanged upstream is unchanged, not a three-way merge).
// The snapshot is the second parent of the latest version that merged one
// (fast-forward, already-applied, reject, or accept: then the candidate's
// own upstream parent), or v1, the mirror.
func restorePartsUpstream(tx *store.Tx, plugin string) error {
	name := store.PluginPartsUnit(plugin)
	h, _ := tx.Ref(store.SkillRef(name))
	for range 100000 {
		c, err := tx.Commit(h)
		if err != nil {
			return err
		}
		switch {
		case len(c.Parents) >= 2:
			u := c.Parents[1]
			if m, err := tx.Commit(u); err == nil && m.Trailer(store.TrailerCandidate) != "" && len(m.Parents) == 2 {
				u = m.Parents[1]
			}
			tx.SetRef(store.UpstreamRef(plugin, store.PluginPartsName), u)
			return nil
		case len(c.Parents) == 0:
			if c.Trailer(store.TrailerMergeMode) == string(store.MergeModeMirror) {
				tx.SetRef(store.UpstreamRef(plugin, store.PluginPartsName), h)
			}
			return nil
		}
		h = c.Parents[0]
	}
	return nil
}
