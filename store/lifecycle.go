package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Status is a skill's lifecycle state. Active skills are exported to
// agents; disabled ones are kept but not exported; removed ones are also
// hidden from list (their history stays until purged).
type Status string

// Skill statuses. StatusActive is the default and is not recorded.
const (
	StatusActive   Status = "active"
	StatusDisabled Status = "disabled"
	StatusRemoved  Status = "removed"
)

// SkillRecord is the state record of a skill ("skills/<name>"), present only
// when something about the skill cannot be derived from its refs.
type SkillRecord struct {
	Status Status `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Source overrides the head version's Source trailer, for example when
	// a plugin skill is adopted and becomes managed.
	Source string `json:"source,omitempty"`
	// FromPlugin and FromUpstream are set when a plugin's skill became
	// managed because the plugin was removed or the skill left its
	// selection: the plugin's id and the skill's last upstream snapshot.
	// Adding that plugin again links the skill back (see [Tx.relinkSkill]).
	FromPlugin   string `json:"from_plugin,omitempty"`
	FromUpstream string `json:"from_upstream,omitempty"`
}

// skillRecordPath is the state record path of a skill: "skills/NAME" for
// a managed skill, "plugin-skills/PLUGIN/NAME" for a plugin's skill
// "PLUGIN:NAME".
func skillRecordPath(name string) string {
	if plugin, skill := SplitName(name); plugin != "" {
		return pluginSkillRecordKind + "/" + plugin + "/" + skill
	}
	return "skills/" + name
}

// PluginRecord is the state record of plugin id, "plugins/ID". Its
// content is package store/plugins' (its Plugin type); the core only asks
// whether one exists, to tell an unknown plugin from a plugin that lacks
// a skill.
func PluginRecord(id string) string { return "plugins/" + id }

// hasPlugin reports whether the store has a record of plugin id (one that
// does not parse is an error, as reading it as a plugin would be).
func (r *Reader) hasPlugin(id string) (bool, error) {
	var rec json.RawMessage
	return r.Record(PluginRecord(id), &rec)
}

// DeleteSkillRecord queues removing the skill's record (a skill moved to
// another name takes its record along).
func (tx *Tx) DeleteSkillRecord(name string) { tx.DeleteRecord(skillRecordPath(name)) }

// pluginSkillRecordKind holds the records of plugins' skills.
const pluginSkillRecordKind = "plugin-skills"

// SkillRecordNames lists the store names of the skills that have a record
// (managed and plugin skills), sorted.
func (r *Reader) SkillRecordNames() ([]string, error) {
	names, err := r.RecordKeys("skills")
	if err != nil {
		return nil, err
	}
	keys, err := r.RecordKeys(pluginSkillRecordKind)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if plugin, skill, ok := strings.Cut(k, "/"); ok {
			names = append(names, QualifiedName(plugin, skill))
		}
	}
	slices.Sort(names)
	return names, nil
}

// SkillRecord returns the skill's record; the zero record (active) when
// there is none.
func (r *Reader) SkillRecord(name string) (SkillRecord, error) {
	var rec SkillRecord
	if _, err := r.Record(skillRecordPath(name), &rec); err != nil {
		return SkillRecord{}, err
	}
	if rec.Status == "" {
		rec.Status = StatusActive
	}
	return rec, nil
}

// PutSkillRecord queues the skill's record, deleting it when it holds only
// defaults.
func (tx *Tx) PutSkillRecord(name string, rec SkillRecord) error {
	if rec.Status == StatusActive {
		rec.Status = ""
	}
	if rec == (SkillRecord{}) {
		tx.DeleteRecord(skillRecordPath(name))
		return nil
	}
	return tx.PutRecord(skillRecordPath(name), rec)
}

func (tx *Tx) reviveIfRemoved(name string) error {
	rec, err := tx.SkillRecord(name)
	if err != nil || rec.Status != StatusRemoved {
		return err
	}
	rec.Status, rec.Reason = StatusActive, ""
	tx.NoteState(fmt.Sprintf("%s: restored by a new version", name))
	return tx.PutSkillRecord(name, rec)
}

// ErrNoChange is returned (wrapped) when a command would change nothing.
var ErrNoChange = errors.New("nothing to change")

// SetStatus sets a skill's status (disable, enable, rm) with a reason,
// recorded as a state commit.
func (s *Store) SetStatus(ctx context.Context, name string, status Status, reason string) error {
	return s.Update(ctx, func(tx *Tx) error {
		if _, ok := tx.Ref(SkillRef(name)); !ok {
			return tx.unknownSkill(name)
		}
		rec, err := tx.SkillRecord(name)
		if err != nil {
			return err
		}
		if rec.Status == status {
			return fmt.Errorf("%s is already %s: %w", name, status, ErrNoChange)
		}
		rec.Status, rec.Reason = status, reason
		if status == StatusActive {
			rec.Reason = ""
		}
		tx.NoteState(fmt.Sprintf("%s: %s", name, status), Trailer{Key: TrailerReason, Value: reason})
		return tx.PutSkillRecord(name, rec)
	})
}

// Purge deletes a skill's ref, its candidate ref and its record. Its
// objects become unreachable and gc prunes them after the grace period.
func (s *Store) Purge(ctx context.Context, name, reason string) error {
	return s.Update(ctx, func(tx *Tx) error {
		if _, ok := tx.Ref(SkillRef(name)); !ok {
			return tx.unknownSkill(name)
		}
		tx.DeleteRef(SkillRef(name))
		if _, ok := tx.Ref(CandidateRef(name)); ok {
			tx.DeleteRef(CandidateRef(name))
		}
		// Purging must leave a trace in the audit log even without a record.
		if err := tx.PutRecord("purged/"+name, map[string]string{"reason": reason}); err != nil {
			return err
		}
		tx.DeleteRecord(skillRecordPath(name))
		tx.NoteState(fmt.Sprintf("%s: purged", name), Trailer{Key: TrailerReason, Value: reason})
		return nil
	})
}

// Rollback records a new version of the skill whose tree is that of the
// version named by spec (history is never rewritten).
func (s *Store) Rollback(ctx context.Context, name, spec, reason string) (Version, error) {
	var out Version
	err := s.Update(ctx, func(tx *Tx) error {
		head, err := tx.Head(name)
		if err != nil {
			return err
		}
		target, err := tx.Resolve(name + "@" + spec)
		if err != nil {
			return err
		}
		if target.Tree == head.Tree {
			return fmt.Errorf("%s is already at the content of v%d: %w", target.Name(), target.Number, ErrNoChange)
		}
		if reason == "" {
			reason = fmt.Sprintf("roll back to v%d", target.Number)
		}
		out, err = tx.CommitVersion(name, target.Tree, VersionInfo{
			Source: head.Source, Plugin: head.Plugin, PluginVersion: head.PluginVersion,
			MergeMode: MergeModeRollback, Reason: reason, Risk: target.Risk, Findings: target.Findings,
			Trailers: []Trailer{{Key: TrailerRollbackTo, Value: fmt.Sprintf("v%d %s", target.Number, target.Commit)}},
		})
		return err
	})
	return out, err
}
