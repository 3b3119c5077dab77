package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// What a person types to name a skill: the qualified name PLUGIN:NAME
// always works; the short name NAME works when exactly one published skill
// has it (the managed NAME, or one plugin's PLUGIN:NAME). A short name
// several have is an error rather than a preference for one of them, so
// that adding a plugin or a managed skill never silently changes what an
// existing command line acts on; ":NAME" (no plugin) names the managed
// skill NAME explicitly. ResolveSkill turns any of these into the store
// name every other call takes.

// ManagedPrefix marks a name typed as the managed skill's explicitly:
// ":NAME".
const ManagedPrefix = ":"

// AmbiguousSkillError reports a short name that several published skills
// have: the managed one and plugins' ones, or several plugins'.
type AmbiguousSkillError struct {
	Name string
	// Matches are the store names it could mean, sorted.
	Matches []string
}

func (e *AmbiguousSkillError) Error() string {
	return fmt.Sprintf("skill name %q is ambiguous: it names %s", e.Name, strings.Join(e.Typeable(), ", "))
}

// Typeable are the Matches as a person can type them unambiguously: the
// managed skill as ":NAME".
func (e *AmbiguousSkillError) Typeable() []string {
	out := make([]string, len(e.Matches))
	for i, m := range e.Matches {
		if plugin, _ := SplitName(m); plugin == "" {
			m = ManagedPrefix + m
		}
		out[i] = m
	}
	return out
}

// ErrUnknownPlugin is wrapped by errors about a plugin id the store lacks.
var ErrUnknownPlugin = errors.New("no such plugin")

// UnknownPluginSkillError reports a qualified name "PLUGIN:NAME" whose
// plugin the store does not have (it wraps ErrUnknownPlugin).
type UnknownPluginSkillError struct{ Name, Plugin string }

func (e *UnknownPluginSkillError) Error() string {
	return fmt.Sprintf("unknown skill %q: the store has no plugin %q", e.Name, e.Plugin)
}

func (e *UnknownPluginSkillError) Unwrap() error { return ErrUnknownPlugin }

// unknownSkill is the error for a store name with no published ref: an
// *UnknownPluginSkillError when its plugin part names no plugin (nor any
// skill kept from a removed one), else an *UnknownSkillError.
func (r *Reader) unknownSkill(name string) error {
	if plugin, _ := SplitName(name); plugin != "" {
		if has, err := r.hasPlugin(plugin); err == nil && !has && len(r.RefNames(PluginSkillsPrefix(plugin))) == 0 {
			return &UnknownPluginSkillError{Name: name, Plugin: plugin}
		}
	}
	return &UnknownSkillError{Name: name}
}

// PluginLacksSkillError reports a qualified name whose plugin exists but
// has no published skill of that name. It unwraps to an
// *UnknownSkillError, so callers that only care about "no such skill"
// need not know the difference.
type PluginLacksSkillError struct{ Name, Plugin, Skill string }

func (e *PluginLacksSkillError) Error() string {
	return fmt.Sprintf("plugin %q has no skill %q", e.Plugin, e.Skill)
}

func (e *PluginLacksSkillError) Unwrap() error { return &UnknownSkillError{Name: e.Name} }

// ResolveSkill returns the store name of the published skill input names:
// input itself when it is qualified and published (a managed skill's
// qualified name is its bare NAME; ":NAME" says so explicitly), else the
// one plugin skill a short name fits, or an *AmbiguousSkillError, *UnknownPluginSkillError
// (unknown plugin), *PluginLacksSkillError, *UnknownSkillError or *InvalidNameError.
//
// It costs a few ref lookups, whatever the store's size: the managed ref
// by name, then one lookup per plugin id, the ids found by seeking through
// refs/heads/plugins/ (see gitdb.RefReader.Children), never a listing of
// every skill.
func (r *Reader) ResolveSkill(input string) (string, error) {
	if managed, ok := strings.CutPrefix(input, ManagedPrefix); ok {
		if err := skillfs.CheckName(managed); err != nil {
			return "", err
		}
		if _, ok := r.Ref(SkillRef(managed)); !ok {
			return "", &UnknownSkillError{Name: input}
		}
		return managed, nil
	}
	if err := CheckQualifiedName(input); err != nil {
		return "", err
	}
	plugin, skill := SplitName(input)
	if plugin != "" {
		return r.resolveQualified(input, plugin, skill)
	}
	// A managed skill's qualified name is its bare name: it always
	// names that skill, whatever plugins ship a skill of that name.
	if _, ok := r.Ref(SkillRef(skill)); ok {
		return skill, nil
	}
	var matches []string
	ids, err := r.pluginsWithSkill(skill)
	if err != nil {
		return "", err
	}
	for _, id := range ids {
		matches = append(matches, QualifiedName(id, skill))
	}
	switch len(matches) {
	case 0:
		return "", &UnknownSkillError{Name: input}
	case 1:
		return matches[0], nil
	default:
		sort.Strings(matches)
		return "", &AmbiguousSkillError{Name: input, Matches: matches}
	}
}

// resolveQualified checks that PLUGIN:NAME is published, and when it is
// not, whether the plugin is unknown or only lacks the skill.
func (r *Reader) resolveQualified(input, plugin, skill string) (string, error) {
	if _, ok := r.Ref(SkillRef(input)); ok {
		return input, nil
	}
	has, err := r.hasPlugin(plugin)
	if err != nil {
		return "", err
	}
	if !has {
		skills, err := r.refChildren(PluginSkillsPrefix(plugin))
		if err != nil {
			return "", err
		}
		if len(skills) == 0 {
			return "", &UnknownPluginSkillError{Name: input, Plugin: plugin}
		}
	}
	return "", &PluginLacksSkillError{Name: input, Plugin: plugin, Skill: skill}
}

// ResolveCandidateName is ResolveSkill for the skill of a pending candidate,
// which may not be published yet (a new skill held for review): a name no
// published skill has is looked up among the candidate refs the same way
// (the short name when one candidate has it). A name with no candidate
// either comes back as typed, for the caller to say there is none.
func (r *Reader) ResolveCandidateName(input string) (string, error) {
	name, err := r.ResolveSkill(input)
	if !errors.As(err, new(*UnknownSkillError)) || errors.As(err, new(*UnknownPluginSkillError)) {
		return name, err
	}
	plugin, skill := SplitName(strings.TrimPrefix(input, ManagedPrefix))
	if plugin != "" || strings.HasPrefix(input, ManagedPrefix) {
		return QualifiedName(plugin, skill), nil
	}
	var matches []string
	if _, ok := r.Ref(CandidateRef(skill)); ok {
		matches = append(matches, skill)
	}
	ids, err := r.refs.ChildrenWith(PluginCandidateRefPrefix, skill)
	if err != nil {
		return "", err
	}
	for _, id := range ids {
		matches = append(matches, QualifiedName(id, skill))
	}
	if len(matches) > 1 {
		return "", &AmbiguousSkillError{Name: input, Matches: matches}
	}
	if len(matches) == 1 {
		return matches[0], nil
	}
	return input, nil
}

// ResolveSpec resolves the name of a version spec, "NAME[@REV]", keeping
// the revision: "access@v3" may become "chat:access@v3".
func (r *Reader) ResolveSpec(spec string) (string, error) {
	name, rev, hasRev := strings.Cut(spec, "@")
	resolved, err := r.ResolveSkill(name)
	if err != nil {
		return "", err
	}
	if hasRev {
		return resolved + "@" + rev, nil
	}
	return resolved, nil
}

// refChildren is gitdb.RefReader.Children seeing the unsaved ref updates
// (a dry run's, the transaction's own inside Update); ids whose refs are all deleted may remain
// (callers look up the full name).
func (r *Reader) refChildren(prefix string) ([]string, error) {
	ids, err := r.refs.Children(prefix)
	if err != nil {
		return nil, err
	}
	unsaved := r.unsavedRefs()
	if len(unsaved) == 0 {
		return ids, nil
	}
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	for name, h := range unsaved {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || h.IsZero() {
			continue
		}
		if id, _, _ := strings.Cut(rest, "/"); id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// pluginsWithSkill returns the ids of the plugins with a published skill
// of short name skill (gitdb.RefReader.ChildrenWith), seeing the unsaved
// ref updates (a dry run's, the transaction's own inside Update).
func (r *Reader) pluginsWithSkill(skill string) ([]string, error) {
	ids, err := r.refs.ChildrenWith(PluginRefPrefix, skill)
	if err != nil {
		return nil, err
	}
	unsaved := r.unsavedRefs()
	if len(unsaved) == 0 {
		return ids, nil
	}
	has := map[string]bool{}
	for _, id := range ids {
		has[id] = true
	}
	for name, h := range unsaved {
		rest, ok := strings.CutPrefix(name, PluginRefPrefix)
		if !ok {
			continue
		}
		if id, leaf, ok := strings.Cut(rest, "/"); ok && leaf == skill {
			has[id] = !h.IsZero()
		}
	}
	ids = ids[:0]
	for id, ok := range has {
		if ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// ResolveSkill is Reader.ResolveSkill in a View of its own.
func (s *Store) ResolveSkill(ctx context.Context, input string) (string, error) {
	names, err := s.ResolveSkills(ctx, []string{input})
	if err != nil {
		return "", err
	}
	return names[0], nil
}

// ResolveSkills resolves several names in one View; the first failure is
// returned.
func (s *Store) ResolveSkills(ctx context.Context, inputs []string) ([]string, error) {
	out := make([]string, len(inputs))
	err := s.View(ctx, func(r *Reader) error {
		for i, in := range inputs {
			name, err := r.ResolveSkill(in)
			if err != nil {
				return err
			}
			out[i] = name
		}
		return nil
	})
	return out, err
}

// ResolveCandidateName is Reader.ResolveCandidateName in a View of its own.
func (s *Store) ResolveCandidateName(ctx context.Context, input string) (string, error) {
	var out string
	err := s.View(ctx, func(r *Reader) error {
		var err error
		out, err = r.ResolveCandidateName(input)
		return err
	})
	return out, err
}

// ResolveSpec is Reader.ResolveSpec in a View of its own.
func (s *Store) ResolveSpec(ctx context.Context, spec string) (string, error) {
	var out string
	err := s.View(ctx, func(r *Reader) error {
		var err error
		out, err = r.ResolveSpec(spec)
		return err
	})
	return out, err
}
