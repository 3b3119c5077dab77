package store

import (
	"errors"
	"maps"
	"path"
	"slices"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Names that collide on macOS and Windows (SKILL.md and skill.md, or the
// NFC and NFD forms of one name) make a tree that those systems cannot
// check out. The safety check refuses such a tree wherever it comes in
// (add, sync, a plugin's parts); plugin add, which is otherwise all or
// nothing for one plugin, leaves out only the skill (or the parts) that
// holds them, with an error naming both paths, and adds the rest.

// leaveOutColliding removes from up the skills whose files collide, and
// returns their reports (each an error naming both paths, from the
// plugin's root).
func (tx *Tx) leaveOutColliding(up *upstream) []SkillReport {
	var out []SkillReport
	for _, name := range slices.Sorted(maps.Keys(up.skills)) {
		sk := up.skills[name]
		files, err := tx.loadUpstreamFiles(sk)
		if err != nil {
			continue // the sync that follows reports it
		}
		paths := make([]string, len(files))
		for i, f := range files {
			paths[i] = f.Path
		}
		var c *skillfs.CollisionError
		if errors.As(skillfs.CheckCollisions(paths), &c) {
			c = &skillfs.CollisionError{A: path.Join(sk.path, c.A), B: path.Join(sk.path, c.B)}
			out = append(out, SkillReport{Skill: name, Classification: ClassNew, Error: "left out: " + c.Error()})
			delete(up.skills, name)
		}
	}
	return out
}

// unclaim drops the skills of left from p's skills (plugin add claimed
// every skill of the layout before reading them).
func unclaim(p *Plugin, left []SkillReport) {
	p.Skills = slices.DeleteFunc(p.Skills, func(s string) bool {
		return slices.ContainsFunc(left, func(r SkillReport) bool { return r.Skill == s })
	})
}

// partsLeftOut reports whether err, from syncing a plugin being added, is
// only its parts' names colliding: the parts are then left out (their
// report names both paths) and the plugin's skills go in.
func partsLeftOut(err error, pr *PluginReport) bool {
	var c *skillfs.CollisionError
	return errors.As(err, &c) && pr.Parts != nil && pr.Parts.Error != ""
}
