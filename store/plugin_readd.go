package store

import (
	"fmt"
)

// A plugin's skill becomes a managed skill when the plugin is removed or
// the skill leaves the plugin's selection. It keeps its history, and its
// record remembers the plugin and the last upstream snapshot, so that
// adding the plugin again (a new tag, a fork) links the skill back
// instead of refusing it as someone else's: the upstream becomes its merge
// base again, and a local edit made meanwhile meets the next upstream
// change as a three-way candidate, not as a revert.

// detachSkill makes plugin p's skill a managed skill that remembers where
// it came from. Its pending candidate is kept reachable under
// refs/skillstore/superseded/. The caller drops the skill from p and
// deletes its upstream ref.
func (tx *Tx) detachSkill(p *Plugin, skill string) error {
	if cand, ok := tx.Ref(CandidateRef(skill)); ok {
		tx.SetRef(SupersededRefPrefix+skill+"/"+cand.String(), cand)
		tx.DeleteRef(CandidateRef(skill))
	}
	if _, ok := tx.Ref(SkillRef(skill)); !ok {
		return nil
	}
	rec, err := tx.SkillRecord(skill)
	if err != nil {
		return err
	}
	rec.Source, rec.FromPlugin, rec.FromUpstream = SourceManaged, p.ID, ""
	if u, ok := tx.Ref(UpstreamRef(p.ID, skill)); ok {
		rec.FromUpstream = u.String()
	}
	return tx.PutSkillRecord(skill, rec)
}

// relinkSkill gives plugin p back a managed skill that became managed when
// it left p (see detachSkill), and reports whether it did. The skill's
// upstream ref points again at its last upstream snapshot, so the next
// sync classifies the upstream against what was accepted before. A
// managed skill that never came from p is not touched; one that left
// another plugin is an *OwnershipError naming that plugin.
func (tx *Tx) relinkSkill(p *Plugin, skill string) (bool, error) {
	rec, err := tx.SkillRecord(skill)
	if err != nil {
		return false, err
	}
	head, ok := tx.Ref(SkillRef(skill))
	if !ok || rec.Source != SourceManaged || rec.FromPlugin == "" {
		return false, nil
	}
	if rec.FromPlugin != p.ID {
		return false, &OwnershipError{Skill: skill, Plugin: p.ID, Owner: SourceManaged, LeftPlugin: rec.FromPlugin}
	}
	upRef := UpstreamRef(p.ID, skill)
	if _, ok := tx.Ref(upRef); !ok {
		u, err := tx.lastSnapshot(p.ID, skill, rec.FromUpstream, head)
		if err != nil {
			return false, err
		}
		if !u.IsZero() {
			tx.SetRef(upRef, u)
		}
	}
	rec.Source, rec.FromPlugin, rec.FromUpstream = "", "", ""
	if err := tx.PutSkillRecord(skill, rec); err != nil {
		return false, err
	}
	tx.NoteState(fmt.Sprintf("plugin %s: %s linked back (managed since it left the plugin)", p.ID, skill), Trailer{Key: TrailerPlugin, Value: p.ID})
	return true, nil
}

// maxSnapshotWalk bounds the search for a skill's last upstream snapshot
// in its history.
const maxSnapshotWalk = 10000

// lastSnapshot is the upstream snapshot to restore for a skill linked back
// to plugin: the one recorded when it left (recorded), or when that commit
// is gone (gc may drop a snapshot no version took in), the nearest
// snapshot of the plugin in the skill's history. Zero when there is none.
func (tx *Tx) lastSnapshot(plugin, skill, recorded string, head Hash) (Hash, error) {
	if h, ok := ParseHash(recorded); ok && tx.hasObject(h) {
		return h, nil
	}
	seen := map[Hash]bool{}
	queue := []Hash{head}
	for len(queue) > 0 && len(seen) < maxSnapshotWalk {
		h := queue[0]
		queue = queue[1:]
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := tx.Commit(h)
		if err != nil {
			return ZeroHash, fmt.Errorf("skill %s: history: %w", skill, err)
		}
		if c.Trailer(TrailerUpstreamPath) != "" && c.Trailer(TrailerPlugin) == plugin {
			return h, nil
		}
		queue = append(queue, c.Parents...)
	}
	return ZeroHash, nil
}
