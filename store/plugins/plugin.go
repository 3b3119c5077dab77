package plugins

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/store"
)

// Plugin is the store's record of an upstream plugin, kept in the state at
// "plugins/<id>". Only what cannot be derived is recorded: the source, the
// policy flags and which skills the plugin owns. What was accepted from
// upstream is derived from refs (see [InfoOf]).
type Plugin struct {
	ID     string `json:"id"`
	Source Source `json:"source"`
	// Name and Version are what the plugin's manifest said at the last sync.
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
	// Release is the version of the release tag the last sync took, for
	// a source that follows tags (Source.Tags); its tag names it.
	Release string `json:"release,omitempty"`
	// Review turns fast-forwards into candidates for this plugin.
	Review bool `json:"review,omitempty"`
	// Paused plugins are skipped by sync.
	Paused bool `json:"paused,omitempty"`
	// Disabled plugins are skipped by sync and their skills disabled.
	Disabled bool `json:"disabled,omitempty"`
	// DisabledSkills are the skills disabling the plugin deactivated (not
	// those already disabled by hand): enabling it re-activates only
	// these. Nil on plugins disabled by older releases.
	DisabledSkills []string `json:"disabled_skills,omitzero"`
	// Select picks which upstream skills the plugin mirrors (absent: all);
	// see [Plugin.Selects].
	Select []string `json:"select,omitempty"`
	// Skills are the skills this plugin owns, sorted.
	Skills []string `json:"skills"`
	// Adopted skills came from this plugin but are managed now: sync
	// leaves them alone.
	Adopted []string `json:"adopted,omitempty"`
	// Removed lists owned skills the upstream no longer has (reported once).
	Removed []string `json:"removed,omitempty"`
	// Marketplace is the marketplace the plugin was added from (its source
	// without selector or ref), so adding it again finds its plugins.
	Marketplace string `json:"marketplace,omitempty"`
	// EntrySkills is the marketplace entry's "skills" list of a plugin that
	// lives in another repository: it wins over that plugin's manifest.
	EntrySkills []string `json:"entry_skills,omitempty"`
	// Entry is the marketplace entry's name when the plugin's id is not
	// that name (see plugin_ids.go), so adding the marketplace again
	// finds the plugin.
	Entry string `json:"entry,omitempty"`
}

// Owns reports whether the plugin owns skill (adopted skills excluded).
func (p *Plugin) Owns(skill string) bool {
	_, ok := slices.BinarySearch(p.Skills, skill)
	return ok
}

// Label is how sync names the plugin in trailers: "plugin:<id>".
func (p *Plugin) Label() string { return "plugin:" + p.ID }

// OwnershipError refuses a skill that already has another owner.
type OwnershipError struct {
	Skill  string
	Plugin string // the plugin asking for the skill
	Owner  string // "plugin:<id>" or SourceManaged
	// LeftPlugin is the plugin a managed skill left (see detachSkill):
	// adding that id again links it back.
	LeftPlugin string
}

func (e *OwnershipError) Error() string {
	if e.Owner == store.SourceManaged && e.LeftPlugin != "" {
		return fmt.Sprintf("skill %q of plugin %q is already a managed skill in the store (it left plugin %q: adding that id again links it back)", e.Skill, e.Plugin, e.LeftPlugin)
	}
	if e.Owner == store.SourceManaged {
		return fmt.Sprintf("skill %q of plugin %q is already a managed skill in the store", e.Skill, e.Plugin)
	}
	return fmt.Sprintf("skill %q of plugin %q is already owned by %s", e.Skill, e.Plugin, e.Owner)
}

// Get reads the record of plugin id.
func Get(r *store.Reader, id string) (*Plugin, error) {
	var p Plugin
	ok, err := r.Record(store.PluginRecord(id), &p)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("plugin %q: %w", id, store.ErrUnknownPlugin)
	}
	return &p, nil
}

// List reads every plugin record, sorted by id.
func List(r *store.Reader) ([]*Plugin, error) {
	ids, err := r.RecordKeys("plugins")
	if err != nil {
		return nil, err
	}
	out := make([]*Plugin, 0, len(ids))
	for _, id := range ids {
		p, err := Get(r, id)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// SkillOwner names who owns the skill of store name name: "plugin:<id>"
// for a plugin's skill "ID:NAME" its plugin owns, SourceManaged for any
// other published skill, or "" for no skill of that name.
func SkillOwner(r *store.Reader, name string) (string, error) {
	if plugin, skill := store.SplitName(name); plugin != "" {
		p, err := Get(r, plugin)
		if err != nil && !errors.Is(err, store.ErrUnknownPlugin) {
			return "", err
		}
		if p != nil && p.Owns(skill) {
			return p.Label(), nil
		}
	}
	if _, ok := r.Ref(store.SkillRef(name)); ok {
		return store.SourceManaged, nil
	}
	return "", nil
}

// Put queues writing p's record.
func Put(tx *store.Tx, p *Plugin) error {
	slices.Sort(p.Skills)
	p.Skills = slices.Compact(p.Skills)
	if p.Skills == nil {
		p.Skills = []string{}
	}
	slices.Sort(p.Adopted)
	slices.Sort(p.Removed)
	return tx.PutRecord(store.PluginRecord(p.ID), p)
}

// SetFlags changes a plugin's paused and review flags (nil: keep).
func SetFlags(tx *store.Tx, id string, paused, review *bool) (*Plugin, error) {
	p, err := Get(tx.Reader, id)
	if err != nil {
		return nil, err
	}
	var what []string
	if paused != nil && p.Paused != *paused {
		p.Paused = *paused
		what = append(what, map[bool]string{true: "paused", false: "resumed"}[*paused])
	}
	if review != nil && p.Review != *review {
		p.Review = *review
		what = append(what, map[bool]string{true: "review on", false: "review off"}[*review])
	}
	if len(what) == 0 {
		return p, nil
	}
	tx.NoteState(fmt.Sprintf("plugin %s: %s", id, strings.Join(what, ", ")), store.Trailer{Key: store.TrailerPlugin, Value: id})
	return p, Put(tx, p)
}

// AdoptSkill makes a plugin's skill a managed skill: the plugin no longer
// owns it and sync leaves it alone. Its published ref moves from
// "ID:SKILL" to the managed name SKILL with its history, which must be free.
func adoptSkill(tx *store.Tx, id, skill string) error {
	if plugin, short := store.SplitName(skill); plugin == id {
		skill = short // "ID:SKILL" names the same skill
	}
	p, err := Get(tx.Reader, id)
	if err != nil {
		return err
	}
	if !p.Owns(skill) {
		if slices.Contains(p.Adopted, skill) {
			return fmt.Errorf("skill %q of plugin %q is already adopted: %w", skill, id, store.ErrNoChange)
		}
		return fmt.Errorf("plugin %q has no skill %q (its skills: %s)", id, skill, strings.Join(p.Skills, ", "))
	}
	name := store.QualifiedName(id, skill)
	if _, ok := tx.Ref(store.SkillRef(name)); ok {
		if _, taken := tx.Ref(store.SkillRef(skill)); taken {
			return fmt.Errorf("adopt %s: a managed skill %q already exists: remove or rename it first", name, skill)
		}
		if err := moveSkill(tx, name, skill); err != nil {
			return err
		}
	}
	p.Skills = slices.DeleteFunc(p.Skills, func(s string) bool { return s == skill })
	p.Removed = slices.DeleteFunc(p.Removed, func(s string) bool { return s == skill })
	p.Adopted = append(p.Adopted, skill)
	tx.NoteState(fmt.Sprintf("plugin %s: adopt %s as the managed skill %s", id, name, skill), store.Trailer{Key: store.TrailerPlugin, Value: id})
	return Put(tx, p)
}

// RemovePlugin forgets a plugin: its record, source ref, upstream refs and
// pending candidates go; its skills stay as managed skills with their
// history (or as removed plugin skills when a managed skill has the name),
// remembering the plugin so that adding it again links them back (see
// detachSkill). Superseded candidate refs keep old candidates reachable.
func removePlugin(tx *store.Tx, id string) (*Plugin, error) {
	p, err := Get(tx.Reader, id)
	if err != nil {
		return nil, err
	}
	for _, skill := range p.Skills {
		if _, err := detachSkill(tx, p, skill); err != nil {
			return nil, err
		}
	}
	detachPluginParts(tx, id)
	for _, ref := range tx.RefNames(store.UpstreamPrefix(id)) {
		tx.DeleteRef(ref)
	}
	if _, ok := tx.Ref(store.SourceRef(id)); ok {
		tx.DeleteRef(store.SourceRef(id))
	}
	tx.DeleteRecord(store.PluginRecord(id))
	tx.NoteState(fmt.Sprintf("plugin %s: removed", id), store.Trailer{Key: store.TrailerPlugin, Value: id})
	return p, nil
}

// EntryName is the marketplace entry a plugin added from a marketplace came
// from: the name recorded when its id is another, else its selector
// (entries in the marketplace's source), else its id.
func EntryName(p *Plugin) string {
	if p.Entry != "" {
		return p.Entry
	}
	if p.Source.Selector != "" {
		return p.Source.Selector
	}
	return p.ID
}

// Origin says where a plugin comes from, for errors naming two.
func Origin(p *Plugin) string {
	if p.Marketplace != "" {
		return fmt.Sprintf("%s of marketplace %s", p.Source, p.Marketplace)
	}
	return p.Source.String()
}

// ErrPluginExists is wrapped when a plugin id is already taken.
var ErrPluginExists = errors.New("plugin already exists")
