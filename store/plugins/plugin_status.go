package plugins

import (
	"context"
	"fmt"
	"slices"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
)

// SkillState is where a plugin's skill stands against its upstream.
type SkillState string

// Derived statuses of a plugin's skill, computed from refs only.
const (
	SkillSynced          SkillState = "synced"            // the latest upstream snapshot is an ancestor of the published ref
	SkillUpdateAvailable SkillState = "update available"  // a snapshot not yet taken in and no candidate for it
	SkillCandidate       SkillState = "candidate pending" // a candidate waits for review
	SkillConflicted      SkillState = "conflicted"        // a candidate with conflict markers left
	SkillMissing         SkillState = "missing"           // owned, but no published ref
)

// SkillStatus is one skill of a plugin as `plugin list` shows it.
type SkillStatus struct {
	Skill    string     `json:"skill"`
	Status   SkillState `json:"status"`
	Version  int        `json:"version,omitempty"`
	Upstream string     `json:"upstream,omitempty"` // the latest snapshot
	// Modified reports local edits: the published tree differs from the
	// accepted upstream tree.
	Modified bool `json:"modified"`
	Disabled bool `json:"disabled,omitempty"`
}

// Info is a plugin with its derived state.
type Info struct {
	*Plugin
	// StateName is disabled, paused, missing (its source is gone: see
	// SourceError), adopted (every skill it had is managed now) or enabled.
	StateName string `json:"state"`
	// SourceError says why the source is gone: a folder checked now, a
	// git source as the last sync found it.
	SourceError string        `json:"source_error,omitempty"`
	Commit      string        `json:"commit,omitempty"` // last fetched commit (git sources)
	Status      []SkillStatus `json:"skill_status"`
	// Parts is the status of the plugin's parts, "PLUGIN:_plugin" (nil:
	// the plugin has none).
	Parts *SkillStatus `json:"parts,omitempty"`
}

// State is "disabled", "paused", "adopted" (it owns no skill any more and
// some were adopted) or "enabled", from the record alone.
func (p *Plugin) State() string {
	switch {
	case p.Disabled:
		return "disabled"
	case p.Paused:
		return "paused"
	case len(p.Skills) == 0 && len(p.Adopted) > 0:
		return "adopted"
	}
	return "enabled"
}

// InfoOf derives the status of plugin id's skills.
func InfoOf(r *store.Reader, id string) (*Info, error) {
	return infoOf(r, id, loadSourceErrors(r.Store()))
}

func infoOf(r *store.Reader, id string, lastSync map[string]string) (*Info, error) {
	p, err := Get(r, id)
	if err != nil {
		return nil, err
	}
	info := &Info{Plugin: p, StateName: p.State(), Status: []SkillStatus{}}
	if info.SourceError = sourceProblem(r, p, lastSync); info.SourceError != "" && info.StateName == "enabled" {
		info.StateName = "missing"
	}
	if h, ok := r.Ref(store.SourceRef(id)); ok {
		info.Commit = h.String()
	}
	for _, skill := range p.Skills {
		st, err := skillStatus(r, p, skill)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", id, err)
		}
		info.Status = append(info.Status, st)
	}
	if _, ok := r.Ref(store.SkillRef(store.PluginPartsUnit(id))); ok {
		st, err := skillStatus(r, p, store.PluginPartsName)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", id, err)
		}
		st.Skill = store.PluginPartsUnit(id)
		info.Parts = &st
	}
	return info, nil
}

// Infos derives the status of every plugin.
func Infos(r *store.Reader) ([]*Info, error) {
	plugins, err := List(r)
	if err != nil {
		return nil, err
	}
	out := make([]*Info, 0, len(plugins))
	lastSync := loadSourceErrors(r.Store())
	for _, p := range plugins {
		info, err := infoOf(r, p.ID, lastSync)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

func skillStatus(r *store.Reader, p *Plugin, skill string) (SkillStatus, error) {
	st := SkillStatus{Skill: skill}
	name := store.QualifiedName(p.ID, skill)
	head, ok := r.Ref(store.SkillRef(name))
	if !ok {
		st.Status = SkillMissing
		return st, nil
	}
	v, err := r.VersionAt(name, head)
	if err != nil {
		return st, err
	}
	st.Version = v.Number
	if rec, err := r.SkillRecord(name); err == nil && rec.Status == store.StatusDisabled {
		st.Disabled = true
	}
	u, ok := r.Ref(store.UpstreamRef(p.ID, skill))
	if !ok {
		st.Status = SkillMissing
		return st, nil
	}
	st.Upstream = u.String()
	base, err := r.MergeBase(head, u)
	if err != nil {
		return st, err
	}
	if !base.IsZero() {
		bc, err := r.Commit(base)
		if err != nil {
			return st, err
		}
		st.Modified = bc.Tree != v.Tree
	}
	if _, ok := r.Ref(store.CandidateRef(name)); ok {
		c, err := candidates.Get(r, name)
		if err != nil {
			return st, err
		}
		st.Status = SkillCandidate
		if len(c.Markers) > 0 {
			st.Status = SkillConflicted
		}
		return st, nil
	}
	if base == u {
		st.Status = SkillSynced
	} else {
		st.Status = SkillUpdateAvailable
	}
	return st, nil
}

// Pause pauses (or with paused false resumes) a plugin.
func Pause(ctx context.Context, s *store.Store, id string, paused bool) (*Plugin, error) {
	var p *Plugin
	err := s.Update(ctx, func(tx *store.Tx) error {
		cur, err := Get(tx.Reader, id)
		if err != nil {
			return err
		}
		if cur.Paused == paused {
			return fmt.Errorf("plugin %s is already %s: %w", id, map[bool]string{true: "paused", false: "running"}[paused], store.ErrNoChange)
		}
		p, err = SetFlags(tx, id, &paused, nil)
		return err
	})
	return p, err
}

// Disable stops syncing a plugin and disables the skills it owns
// (kept with their history, not exported). EnablePlugin undoes it.
func Disable(ctx context.Context, s *store.Store, id, reason string) (*Plugin, error) {
	return setDisabled(ctx, s, id, true, reason)
}

// Enable re-enables a disabled plugin and its skills.
func Enable(ctx context.Context, s *store.Store, id string) (*Plugin, error) {
	return setDisabled(ctx, s, id, false, "")
}

func setDisabled(ctx context.Context, s *store.Store, id string, disabled bool, reason string) (*Plugin, error) {
	var p *Plugin
	err := s.Update(ctx, func(tx *store.Tx) error {
		var err error
		if p, err = Get(tx.Reader, id); err != nil {
			return err
		}
		if p.Disabled == disabled {
			return fmt.Errorf("plugin %s is already %s: %w", id, map[bool]string{true: "disabled", false: "enabled"}[disabled], store.ErrNoChange)
		}
		return SetDisabledIn(tx, p, disabled, reason)
	})
	return p, err
}

// SetDisabledIn disables plugin p and the skills it owns that are
// active (or enables it and the skills disabling it deactivated) in tx,
// and records it; reason is the skills' disabled reason ("": the
// default). Plugin add calls it for a plugin whose manifest says
// defaultEnabled: false.
func SetDisabledIn(tx *store.Tx, p *Plugin, disabled bool, reason string) error {
	id := p.ID
	if reason == "" {
		reason = "plugin " + id + " disabled"
	}
	wasDisabled := p.DisabledSkills
	var deactivated []string
	p.Disabled = disabled
	for _, skill := range p.Skills {
		name := store.QualifiedName(p.ID, skill)
		if _, ok := tx.Ref(store.SkillRef(name)); !ok {
			continue
		}
		rec, err := tx.SkillRecord(name)
		if err != nil {
			return err
		}
		// Enable re-activates only what disable deactivated: a skill
		// the user disabled on its own stays disabled. (A plugin
		// disabled by an older release has no list: all come back.)
		switch {
		case disabled && rec.Status == store.StatusActive:
			rec.Status, rec.Reason = store.StatusDisabled, reason
			deactivated = append(deactivated, skill)
		case !disabled && rec.Status == store.StatusDisabled && (wasDisabled == nil || slices.Contains(wasDisabled, skill)):
			rec.Status, rec.Reason = store.StatusActive, ""
		default:
			continue
		}
		if err := tx.PutSkillRecord(name, rec); err != nil {
			return err
		}
	}
	p.DisabledSkills = deactivated
	if disabled && p.DisabledSkills == nil {
		p.DisabledSkills = []string{}
	}
	verb := map[bool]string{true: "disabled", false: "enabled"}[disabled]
	tx.NoteState(fmt.Sprintf("plugin %s: %s", id, verb), store.Trailer{Key: store.TrailerPlugin, Value: id}, store.Trailer{Key: store.TrailerReason, Value: reason})
	return Put(tx, p)
}

// AdoptSkill makes plugin id's skill a managed skill (see adoptSkill).
func AdoptSkill(ctx context.Context, s *store.Store, id, skill string) error {
	return s.Update(ctx, func(tx *store.Tx) error {
		if err := adoptSkill(tx, id, skill); err != nil {
			return err
		}
		rec, err := tx.SkillRecord(skill)
		if err != nil {
			return err
		}
		rec.Source = store.SourceManaged
		return tx.PutSkillRecord(skill, rec)
	})
}

// Remove forgets a plugin (see removePlugin).
func Remove(ctx context.Context, s *store.Store, id string) (*Plugin, error) {
	var p *Plugin
	err := s.Update(ctx, func(tx *store.Tx) error {
		var err error
		p, err = removePlugin(tx, id)
		return err
	})
	if err != nil {
		return p, err
	}
	return p, DropProjectOnly(ctx, s, id)
}
