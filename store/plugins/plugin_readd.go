package plugins

import (
	"fmt"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
)

// A plugin's skill becomes a managed skill when the plugin is removed or
// the skill leaves the plugin's selection. It keeps its history, and its
// record remembers the plugin and the last upstream snapshot, so that
// adding the plugin again (a new tag, a fork) links the skill back
// instead of refusing it as someone else's: the upstream becomes its merge
// base again, and a local edit made meanwhile meets the next upstream
// change as a three-way candidate, not as a revert.

// detachSkill makes plugin p's skill a managed skill that remembers where
// it came from, and returns the store name it has afterwards. Its pending
// candidate is kept reachable under refs/skillstore/superseded/. The
// published ref moves from refs/heads/plugins/P/NAME to
// refs/heads/skills/NAME with its history; when a managed skill NAME
// already exists it is never overwritten: the plugin's skill stays where it
// is as a removed skill ("P:NAME", status removed, still listed by
// 'list --all'), so nothing is lost and adding the plugin again revives it.
// The caller drops the skill from p and deletes its upstream ref.
func detachSkill(tx *store.Tx, p *Plugin, skill string) (string, error) {
	name := store.QualifiedName(p.ID, skill)
	candidates.Supersede(tx, name)
	if _, ok := tx.Ref(store.SkillRef(name)); !ok {
		return name, nil
	}
	rec, err := tx.SkillRecord(name)
	if err != nil {
		return "", err
	}
	rec.Source, rec.FromPlugin, rec.FromUpstream = store.SourceManaged, p.ID, ""
	if u, ok := tx.Ref(store.UpstreamRef(p.ID, skill)); ok {
		rec.FromUpstream = u.String()
	}
	if _, taken := tx.Ref(store.SkillRef(skill)); taken {
		rec.Source = ""
		rec.Status, rec.Reason = store.StatusRemoved, fmt.Sprintf("plugin %s removed; a managed skill %s already exists", p.ID, skill)
		return name, tx.PutSkillRecord(name, rec)
	}
	if err := moveSkill(tx, name, skill); err != nil {
		return "", err
	}
	return skill, tx.PutSkillRecord(skill, rec)
}

// moveSkill moves a skill's published ref and record from one store name
// to another that is free, history kept. A pending candidate is kept
// reachable under refs/skillstore/superseded/ (it was made for the old
// name's place).
func moveSkill(tx *store.Tx, from, to string) error {
	head, ok := tx.Ref(store.SkillRef(from))
	if !ok {
		return &store.UnknownSkillError{Name: from}
	}
	if _, taken := tx.Ref(store.SkillRef(to)); taken {
		return &SkillExistsError{Name: to}
	}
	candidates.Supersede(tx, from)
	rec, err := tx.SkillRecord(from)
	if err != nil {
		return err
	}
	tx.DeleteRef(store.SkillRef(from))
	tx.SetRef(store.SkillRef(to), head)
	tx.DeleteSkillRecord(from)
	return tx.PutSkillRecord(to, rec)
}

// SkillExistsError refuses to give a skill a store name another skill has.
type SkillExistsError struct{ Name string }

func (e *SkillExistsError) Error() string { return fmt.Sprintf("a skill %q already exists", e.Name) }

// relinkSkill gives plugin p back its skill that was detached (see
// detachSkill), and reports whether it did: a managed skill that left p
// moves back to "P:NAME" (when that name is free), or a plugin skill kept
// as removed is revived. The skill's upstream ref points again at its last
// upstream snapshot, so the next sync classifies the upstream against what
// was accepted before. A managed skill that never came from p, or that
// left another plugin, is not touched: p's skill is a new one beside it.
func relinkSkill(tx *store.Tx, p *Plugin, skill string) (bool, error) {
	name := store.QualifiedName(p.ID, skill)
	rec, err := tx.SkillRecord(name)
	if err != nil {
		return false, err
	}
	head, kept := tx.Ref(store.SkillRef(name))
	switch {
	case kept && rec.FromPlugin == p.ID:
		rec.Status, rec.Reason = store.StatusActive, ""
	case kept:
		return false, nil
	default:
		if rec, err = tx.SkillRecord(skill); err != nil {
			return false, err
		}
		var ok bool
		head, ok = tx.Ref(store.SkillRef(skill))
		if !ok || rec.Source != store.SourceManaged || rec.FromPlugin != p.ID {
			return false, nil
		}
		if err := moveSkill(tx, skill, name); err != nil {
			return false, err
		}
	}
	upRef := store.UpstreamRef(p.ID, skill)
	if _, ok := tx.Ref(upRef); !ok {
		u, err := lastSnapshot(tx, p.ID, skill, rec.FromUpstream, head)
		if err != nil {
			return false, err
		}
		if !u.IsZero() {
			tx.SetRef(upRef, u)
		}
	}
	rec.Source, rec.FromPlugin, rec.FromUpstream = "", "", ""
	if err := tx.PutSkillRecord(name, rec); err != nil {
		return false, err
	}
	tx.NoteState(fmt.Sprintf("plugin %s: %s linked back (detached when it left the plugin)", p.ID, name), store.Trailer{Key: store.TrailerPlugin, Value: p.ID})
	return true, nil
}

// maxSnapshotWalk bounds the search for a skill's last upstream snapshot
// in its history.
const maxSnapshotWalk = 10000

// lastSnapshot is the upstream snapshot to restore for a skill linked back
// to plugin: the one recorded when it left (recorded), or when that commit
// is gone (gc may drop a snapshot no version took in), the nearest
// snapshot of the plugin in the skill's history. Zero when there is none.
func lastSnapshot(tx *store.Tx, plugin, skill, recorded string, head store.Hash) (store.Hash, error) {
	if h, ok := store.ParseHash(recorded); ok && tx.HasObject(h) {
		return h, nil
	}
	seen := map[store.Hash]bool{}
	queue := []store.Hash{head}
	for len(queue) > 0 && len(seen) < maxSnapshotWalk {
		h := queue[0]
		queue = queue[1:]
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := tx.Commit(h)
		if err != nil {
			return store.ZeroHash, fmt.Errorf("skill %s: history: %w", skill, err)
		}
		if c.Trailer(store.TrailerUpstreamPath) != "" && c.Trailer(store.TrailerPlugin) == plugin {
			return h, nil
		}
		queue = append(queue, c.Parents...)
	}
	return store.ZeroHash, nil
}

// detachPluginParts is plugin rm for the parts: a pending candidate is
// superseded (kept reachable); the published unit and its history stay,
// so adding the plugin again continues them (see restorePartsUpstream).
func detachPluginParts(tx *store.Tx, plugin string) {
	candidates.Supersede(tx, store.PluginPartsUnit(plugin))
}

// Claim checks that plugin p may own skill, whose store name is
// "P:NAME": its own namespace, so no other plugin's skill nor a managed
// skill of the same name stands in the way. A skill p detached before (see
// detachSkill) is linked back.
func Claim(tx *store.Tx, p *Plugin, skill string) error {
	if err := store.CheckQualifiedName(store.QualifiedName(p.ID, skill)); err != nil {
		return err
	}
	if skill == store.PluginPartsName {
		return &store.InvalidNameError{Name: skill, Reason: "reserved for a plugin's parts"}
	}
	_, err := relinkSkill(tx, p, skill)
	return err
}
