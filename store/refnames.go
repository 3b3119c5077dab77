package store

import (
	"errors"
	"fmt"
	"strings"
)

// Parsing ref names back into store names (layout 2, see the README's
// "Skill identity and ref layout"). Every namespace has a fixed depth, so a
// ref can never be both a file and a directory of another ref.

// ManagedCandidateRefPrefix and PluginCandidateRefPrefix hold the
// candidates of managed and plugin skills.
const (
	ManagedCandidateRefPrefix = CandidateRefPrefix + "skills/"
	PluginCandidateRefPrefix  = CandidateRefPrefix + "plugins/"
)

// SkillNameOfRef is the store name a published ref holds
// (refs/heads/skills/NAME, refs/heads/plugins/PLUGIN/NAME), and false for
// any other ref.
func SkillNameOfRef(ref string) (string, bool) {
	if name, ok := strings.CutPrefix(ref, SkillRefPrefix); ok {
		return name, name != "" && !strings.Contains(name, "/")
	}
	return pluginPair(strings.CutPrefix(ref, PluginRefPrefix))
}

// CandidateNameOfRef is the store name whose candidate a ref holds
// (refs/heads/candidates/skills/NAME,
// refs/heads/candidates/plugins/PLUGIN/NAME), and false for any other ref.
func CandidateNameOfRef(ref string) (string, bool) {
	if name, ok := strings.CutPrefix(ref, ManagedCandidateRefPrefix); ok {
		return name, name != "" && !strings.Contains(name, "/")
	}
	return pluginPair(strings.CutPrefix(ref, PluginCandidateRefPrefix))
}

// pluginPair turns "PLUGIN/NAME" into "PLUGIN:NAME".
func pluginPair(rest string, ok bool) (string, bool) {
	if !ok {
		return "", false
	}
	plugin, skill, found := strings.Cut(rest, "/")
	if !found || plugin == "" || skill == "" || strings.Contains(skill, "/") {
		return "", false
	}
	return QualifiedName(plugin, skill), true
}

// refPath is a store name as ref components: "NAME" or "PLUGIN/NAME".
func refPath(name string) string {
	if plugin, skill := SplitName(name); plugin != "" {
		return plugin + "/" + skill
	}
	return name
}

// SupersededRef keeps a superseded candidate commit of skill name
// reachable: refs/skillstore/superseded/skills/NAME/COMMIT or
// refs/skillstore/superseded/plugins/PLUGIN/NAME/COMMIT.
func SupersededRef(name string, commit Hash) string {
	return SupersededRefPrefix + namespace(name) + refPath(name) + "/" + commit.String()
}

// SupersededNameOfRef parses a superseded ref into the store name and the
// commit it keeps.
func SupersededNameOfRef(ref string) (name string, commit Hash, ok bool) {
	rest, ok := strings.CutPrefix(ref, SupersededRefPrefix)
	if !ok {
		return "", ZeroHash, false
	}
	i := strings.LastIndexByte(rest, '/')
	if i < 0 {
		return "", ZeroHash, false
	}
	if commit, ok = ParseHash(rest[i+1:]); !ok {
		return "", ZeroHash, false
	}
	rest = rest[:i]
	if n, ok := strings.CutPrefix(rest, "skills/"); ok && n != "" && !strings.Contains(n, "/") {
		return n, commit, true
	}
	name, ok = pluginPair(strings.CutPrefix(rest, "plugins/"))
	return name, commit, ok
}

func namespace(name string) string {
	if plugin, _ := SplitName(name); plugin != "" {
		return "plugins/"
	}
	return "skills/"
}

// SkillRefPrefixes are the prefixes of every published skill ref.
var SkillRefPrefixes = []string{SkillRefPrefix, PluginRefPrefix}

// skillRefNames lists the store names of every published ref, skipping
// plugins' parts pseudo-skills, sorted by ref (managed skills first).
func (r *Reader) skillRefNames() []string {
	var out []string
	for _, prefix := range SkillRefPrefixes {
		for _, ref := range r.RefNames(prefix) {
			if name, ok := SkillNameOfRef(ref); ok && !IsPluginParts(name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// OwnName is the skill's own part of a store name: "NAME" for "PLUGIN:NAME"
// and for "NAME". It is the name its SKILL.md gives and its folder's name
// in the plugin, what the validation policy compares against.
func OwnName(name string) string {
	_, skill := SplitName(name)
	return skill
}

func ownName(name string) string { return OwnName(name) }

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
		if _, err := r.Plugin(plugin); errors.Is(err, ErrUnknownPlugin) && len(r.RefNames(PluginRefPrefix+plugin+"/")) == 0 {
			return &UnknownPluginSkillError{Name: name, Plugin: plugin}
		}
	}
	return &UnknownSkillError{Name: name}
}
