package plugins

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/store"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// What `plugin skills` shows and changes: a plugin's skills against what
// its upstream has, and the selection between them.

// Plugin skill states, as PluginSkills reports them.
const (
	SkillMirrored        = "mirrored"         // the plugin owns it and syncs it
	SkillSelected        = "selected"         // selected upstream, mirrored at the next sync
	SkillAvailable       = "available"        // upstream has it, the selection leaves it out
	SkillAdopted         = "adopted"          // came from the plugin, managed now
	SkillRemovedUpstream = "removed-upstream" // owned, the upstream no longer has it
)

// ListedSkill is one skill of a [SkillList].
type ListedSkill struct {
	Skill   string `json:"skill"`
	State   string `json:"state"`
	Version int    `json:"version,omitempty"` // published version, for skills in the store
}

// SkillList is a plugin's skills and the upstream's, side by side.
type SkillList struct {
	Plugin string   `json:"plugin"`
	Select []string `json:"select"` // empty: every skill
	// Commit is the upstream commit the available skills were read at:
	// the last one sync fetched (git sources). Folder sources are read now.
	Commit string `json:"commit,omitempty"`
	// UpstreamError says why the upstream's skills could not be read; the
	// list then holds only the plugin's own.
	UpstreamError string        `json:"upstream_error,omitempty"`
	Skills        []ListedSkill `json:"skills"`
}

// upstreamSkillNames lists the skills plugin p's upstream had at the last
// sync (git sources: the fetched commit the store keeps; folder sources:
// the folder now), without any network access. ok is false for a git
// source never fetched.
func upstreamSkillNames(r *store.Reader, p *Plugin) (names []string, commit store.Hash, ok bool, err error) {
	var fsys pluginfmt.PluginFS
	if p.Source.Kind == SourceFolder {
		root, err := os.OpenRoot(p.Source.URL)
		if err != nil {
			return nil, store.ZeroHash, false, fmt.Errorf("plugin source %s: %w", p.Source.URL, err)
		}
		defer root.Close()
		fsys = root.FS().(pluginfmt.PluginFS)
	} else {
		h, has := r.Ref(store.SourceRef(p.ID))
		if !has {
			return nil, store.ZeroHash, false, nil
		}
		st := objectsOf(r)
		c, err := object.GetCommit(st, plumbing.Hash(h))
		if err != nil {
			return nil, store.ZeroHash, false, fmt.Errorf("plugin %s: fetched commit %s: %w", p.ID, store.ShortHash(h), err)
		}
		tree, err := c.Tree()
		if err != nil {
			return nil, store.ZeroHash, false, fmt.Errorf("plugin %s: fetched commit %s: %w", p.ID, store.ShortHash(h), err)
		}
		fsys, commit = gitfetch.NewTreeFS(st, tree), h
	}
	up, err := newUpstream(p.Source, fsys)
	if err != nil {
		return nil, store.ZeroHash, false, err
	}
	for _, d := range up.Layout.Skills {
		names = append(names, d.Name)
	}
	return names, commit, true, nil
}

// Skills lists plugin id's skills: those it mirrors, adopted or
// removed upstream, and the upstream's others, selected or not.
func Skills(r *store.Reader, id string) (*SkillList, error) {
	p, err := Get(r, id)
	if err != nil {
		return nil, err
	}
	out := &SkillList{Plugin: id, Select: p.Select, Skills: []ListedSkill{}}
	if out.Select == nil {
		out.Select = []string{}
	}
	names, commit, _, err := upstreamSkillNames(r, p)
	if err != nil {
		out.UpstreamError = err.Error()
	}
	if !commit.IsZero() {
		out.Commit = commit.String()
	}
	state := map[string]string{}
	for _, n := range names {
		state[n] = map[bool]string{true: SkillSelected, false: SkillAvailable}[p.Selects(n)]
	}
	for _, n := range p.Skills {
		state[n] = SkillMirrored
	}
	for _, n := range p.Removed {
		state[n] = SkillRemovedUpstream
	}
	for _, n := range p.Adopted {
		state[n] = SkillAdopted
	}
	for n, st := range state {
		ps := ListedSkill{Skill: n, State: st}
		if st != SkillAvailable && st != SkillSelected {
			name := store.QualifiedName(p.ID, n)
			if st == SkillAdopted {
				name = n
			}
			if v, err := r.Head(name); err == nil {
				ps.Version = v.Number
			}
		}
		out.Skills = append(out.Skills, ps)
	}
	slices.SortFunc(out.Skills, func(a, b ListedSkill) int { return strings.Compare(a.Skill, b.Skill) })
	return out, nil
}

// SelectionChange is what ChangeSelection did.
type SelectionChange struct {
	Plugin string   `json:"plugin"`
	Before []string `json:"select_before"`
	After  []string `json:"select"`
	// Managed lists the store names of the skills the plugin mirrored that
	// left the selection: managed skills now, history kept (or "ID:NAME"
	// kept as removed when a managed NAME exists, see detachSkill).
	Managed []string `json:"managed"`
	// Next lists the upstream skills newly selected: the next sync of the
	// plugin mirrors them.
	Next []string `json:"next_sync"`
}

// ChangeSelection changes which skills plugin id mirrors: all resets the
// selection to every skill, then each pattern of add is selected and each
// of remove left out (see includeSkills, excludeSkills). Each pattern must
// match a skill the plugin or its upstream (as last synced) has. A skill
// the plugin mirrored that leaves the selection becomes a managed skill,
// as 'plugin rm' leaves them: its history stays, and selecting it again
// links it back. Newly selected upstream skills are mirrored by the next
// sync. Nothing to change is ErrNoChange.
func ChangeSelection(ctx context.Context, s *store.Store, id string, add, remove []string, all bool) (*SelectionChange, error) {
	var ch *SelectionChange
	err := s.Update(ctx, func(tx *store.Tx) error {
		var err error
		ch, err = changeSelection(tx, id, add, remove, all)
		return err
	})
	return ch, err
}

// changeSelection is [ChangeSelection] inside a transaction.
func changeSelection(tx *store.Tx, id string, add, remove []string, all bool) (*SelectionChange, error) {
	p, err := Get(tx.Reader, id)
	if err != nil {
		return nil, err
	}
	upstream, _, ok, err := upstreamSkillNames(tx.Reader, p)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("plugin %s was never fetched: run 'skillstore sync %s' first", id, id)
	}
	known := slices.Concat(upstream, p.Skills, p.Adopted)
	slices.Sort(known)
	known = slices.Compact(known)
	sel := slices.Clone(p.Select)
	if all {
		sel = nil
	}
	var unused []string
	for _, group := range []struct {
		patterns []string
		apply    func([]string, string, []string) []string
	}{{add, includeSkills}, {remove, excludeSkills}} {
		for _, pat := range group.patterns {
			if strings.HasPrefix(pat, "!") {
				return nil, fmt.Errorf("skill pattern %q: name the skills to leave out with remove, without '!'", pat)
			}
			if err := CheckSkillPattern(pat); err != nil {
				return nil, err
			}
			if !slices.ContainsFunc(known, func(n string) bool { return matches(pat, n) }) {
				unused = append(unused, pat)
				continue
			}
			sel = group.apply(sel, pat, known)
		}
	}
	if len(unused) > 0 {
		return nil, &SelectionError{Source: "plugin " + id, Patterns: unused, Available: known}
	}
	ch := &SelectionChange{Plugin: id, Before: nonNil(p.Select), After: nonNil(sel), Managed: []string{}, Next: []string{}}
	if slices.Equal(sel, p.Select) {
		return ch, fmt.Errorf("plugin %s: the selection is already %s: %w", id, SelectionText(sel), store.ErrNoChange)
	}
	next := *p
	next.Select = sel
	var left []string
	for _, skill := range p.Skills {
		if next.Selects(skill) {
			continue
		}
		now, err := detachSkill(tx, p, skill)
		if err != nil {
			return nil, err
		}
		if _, ok := tx.Ref(store.UpstreamRef(id, skill)); ok {
			tx.DeleteRef(store.UpstreamRef(id, skill))
		}
		left = append(left, skill)
		ch.Managed = append(ch.Managed, now)
	}
	next.Skills = slices.DeleteFunc(slices.Clone(p.Skills), func(s string) bool { return slices.Contains(left, s) })
	next.Removed = slices.DeleteFunc(slices.Clone(p.Removed), func(s string) bool { return slices.Contains(left, s) })
	if next.DisabledSkills != nil {
		// The record lists only the plugin's own skills.
		next.DisabledSkills = slices.DeleteFunc(slices.Clone(p.DisabledSkills), func(s string) bool { return slices.Contains(left, s) })
	}
	for _, n := range upstream {
		if !p.Owns(n) && !slices.Contains(p.Adopted, n) && next.Selects(n) && !p.Selects(n) {
			ch.Next = append(ch.Next, n)
		}
	}
	subject := fmt.Sprintf("plugin %s: selection %s -> %s", id, SelectionText(p.Select), SelectionText(sel))
	if len(ch.Managed) > 0 {
		subject += "; managed now: " + strings.Join(ch.Managed, ", ")
	}
	tx.NoteState(subject, store.Trailer{Key: store.TrailerPlugin, Value: id})
	return ch, Put(tx, &next)
}

// SelectionText renders a selection for people: "all" when empty.
func SelectionText(sel []string) string {
	if len(sel) == 0 {
		return "all"
	}
	return strings.Join(sel, " ")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
