package store

import (
	"fmt"
	"strings"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Every ref name of a store's repository is built, parsed and classified
// here (ref layout 2, see the README's "Skill identity and ref layout").
// Every namespace has a fixed depth, so a ref can never be both a file and
// a directory of another ref:
//
//	refs/heads/skills/NAME                       published managed skill
//	refs/heads/plugins/PLUGIN/NAME               published plugin skill PLUGIN:NAME
//	refs/heads/candidates/skills/NAME            candidate of a managed skill
//	refs/heads/candidates/plugins/PLUGIN/NAME    candidate of a plugin skill
//	refs/upstream/PLUGIN/NAME                    upstream snapshots
//	refs/skillstore/superseded/skills/NAME/COMMIT          superseded candidates
//	refs/skillstore/superseded/plugins/PLUGIN/NAME/COMMIT
//	refs/skillstore/sources/PLUGIN/head          a plugin's fetched source
//	refs/skillstore/locked/skills/NAME           a version a project's lock took from its team remote
//	refs/skillstore/locked/plugins/PLUGIN/NAME
//	refs/skillstore/state                        the state records
//	refs/remotes/REMOTE/...                      a remote's refs as last seen

// Ref name prefixes of a store's repository.
const (
	SkillRefPrefix     = "refs/heads/skills/"
	PluginRefPrefix    = "refs/heads/plugins/"
	UpstreamRefPrefix  = "refs/upstream/"
	CandidateRefPrefix = "refs/heads/candidates/"
	StateRef           = "refs/skillstore/state"
)

// ManagedCandidateRefPrefix and PluginCandidateRefPrefix hold the
// candidates of managed and plugin skills.
const (
	ManagedCandidateRefPrefix = CandidateRefPrefix + "skills/"
	PluginCandidateRefPrefix  = CandidateRefPrefix + "plugins/"
)

// SupersededRefPrefix keeps superseded candidates reachable, one ref per
// candidate commit (see [SupersededRef]).
const SupersededRefPrefix = "refs/skillstore/superseded/"

// SourceRefPrefix starts every plugin's source ref.
const SourceRefPrefix = "refs/skillstore/sources/"

// LockedRefPrefix keeps the versions that 'skillstore install' took from
// the team remote a project's lock names (see [LockedRef]).
const LockedRefPrefix = "refs/skillstore/locked/"

// LockedRef keeps a version of skill name that a project's lock pins and
// that only its team remote had: refs/skillstore/locked/skills/NAME or
// refs/skillstore/locked/plugins/PLUGIN/NAME. The version is not published
// (no skill of the store points at it; the project's targets export it
// through their pins), and the ref never travels: push sends none of it,
// pull never fills it.
func LockedRef(name string) string { return LockedRefPrefix + namespace(name) + refPath(name) }

// RemoteRefPrefix starts the tracking refs of every remote: the values of
// the remote's refs as this store last saw them, at
// refs/remotes/<remote>/<ref without "refs/">.
const RemoteRefPrefix = "refs/remotes/"

// SkillRefPrefixes are the prefixes of every published skill ref.
var SkillRefPrefixes = []string{SkillRefPrefix, PluginRefPrefix}

// SkillRef is the ref of a skill's published history:
// refs/heads/skills/NAME for a managed skill, refs/heads/plugins/PLUGIN/NAME
// for a plugin's skill "PLUGIN:NAME" (see [SplitName]).
func SkillRef(name string) string {
	if plugin, skill := SplitName(name); plugin != "" {
		return PluginRefPrefix + plugin + "/" + skill
	}
	return SkillRefPrefix + name
}

// CandidateRef is the ref of a skill's pending candidate:
// refs/heads/candidates/plugins/PLUGIN/NAME for a plugin's skill
// "PLUGIN:NAME", refs/heads/candidates/skills/NAME for a managed one.
func CandidateRef(skill string) string {
	if plugin, name := SplitName(skill); plugin != "" {
		return PluginCandidateRefPrefix + plugin + "/" + name
	}
	return ManagedCandidateRefPrefix + skill
}

// UpstreamRef is the ref holding the upstream snapshots of a plugin's skill.
func UpstreamRef(plugin, skill string) string {
	_, skill = SplitName(skill)
	return UpstreamRefPrefix + plugin + "/" + skill
}

// SupersededRef keeps a superseded candidate commit of skill name
// reachable: refs/skillstore/superseded/skills/NAME/COMMIT or
// refs/skillstore/superseded/plugins/PLUGIN/NAME/COMMIT.
func SupersededRef(name string, commit Hash) string {
	return SupersededRefPrefix + namespace(name) + refPath(name) + "/" + commit.String()
}

// SourceRef is where the fetched commit of a plugin's git source is kept, so
// its objects stay reachable (git gc keeps them) and sync knows what it saw.
func SourceRef(plugin string) string { return SourceRefPrefix + plugin + "/head" }

// TrackingRef is where this store keeps the value of remote's ref.
func TrackingRef(remote, ref string) string {
	return RemoteRefPrefix + remote + "/" + strings.TrimPrefix(ref, "refs/")
}

// PluginSkillsPrefix starts the published refs of plugin's skills.
func PluginSkillsPrefix(plugin string) string { return PluginRefPrefix + plugin + "/" }

// UpstreamPrefix starts the upstream refs of plugin's skills.
func UpstreamPrefix(plugin string) string { return UpstreamRefPrefix + plugin + "/" }

// PluginPrefixes are the prefixes of every ref of plugin's skills: the
// published, candidate, upstream and superseded ones. Renaming a plugin
// moves the refs under each to the same place under the new id's.
func PluginPrefixes(plugin string) []string {
	return []string{
		PluginSkillsPrefix(plugin),
		PluginCandidateRefPrefix + plugin + "/",
		UpstreamPrefix(plugin),
		SupersededRefPrefix + "plugins/" + plugin + "/",
	}
}

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

// UpstreamNameOfRef is the store name of the skill whose upstream
// snapshots a ref holds (refs/upstream/PLUGIN/NAME: "PLUGIN:NAME"), and
// false for any other ref.
func UpstreamNameOfRef(ref string) (string, bool) {
	rest, ok := strings.CutPrefix(ref, UpstreamRefPrefix)
	if !ok {
		return "", false
	}
	plugin, skill, ok := strings.Cut(rest, "/")
	if !ok {
		return "", false
	}
	return QualifiedName(plugin, skill), true
}

// SkillOfRef is the store name of a published or candidate ref ("" for
// any other ref).
func SkillOfRef(ref string) string {
	if name, ok := SkillNameOfRef(ref); ok {
		return name
	}
	name, _ := CandidateNameOfRef(ref)
	return name
}

// PluginPartsOfRef is the plugin whose published parts unit a ref is
// (refs/heads/plugins/PLUGIN/_plugin), and false for any other ref.
func PluginPartsOfRef(ref string) (string, bool) {
	rest, ok := strings.CutPrefix(ref, PluginRefPrefix)
	if !ok {
		return "", false
	}
	plugin, name, ok := strings.Cut(rest, "/")
	return plugin, ok && plugin != "" && name == PluginPartsName
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

func namespace(name string) string {
	if plugin, _ := SplitName(name); plugin != "" {
		return "plugins/"
	}
	return "skills/"
}

// RefKind says which namespace of the store a ref belongs to.
type RefKind int

// The namespaces [ClassifyRef] tells apart.
const (
	RefOther RefKind = iota
	RefSkill
	RefCandidate
	RefUpstream
	RefSuperseded
	RefState
)

// ClassifyRef returns the namespace of a ref and, for the namespaces that
// travel between stores (published skills, candidates, upstream
// snapshots, superseded candidates, the state), checks its name the way
// local input is checked. A ref outside them (plugin sources, remote
// tracking refs, anything else) is RefOther with a nil error.
func ClassifyRef(name string) (RefKind, error) {
	switch {
	case name == StateRef:
		return RefState, nil
	case strings.HasPrefix(name, SkillRefPrefix), strings.HasPrefix(name, PluginRefPrefix):
		skill, ok := SkillNameOfRef(name)
		if !ok {
			return RefSkill, fmt.Errorf("want %sNAME or %sPLUGIN/NAME", SkillRefPrefix, PluginRefPrefix)
		}
		return RefSkill, CheckQualifiedName(skill)
	case strings.HasPrefix(name, CandidateRefPrefix):
		skill, ok := CandidateNameOfRef(name)
		if !ok {
			return RefCandidate, fmt.Errorf("want %sNAME or %sPLUGIN/NAME (a candidate ref of ref layout 1?)", ManagedCandidateRefPrefix, PluginCandidateRefPrefix)
		}
		return RefCandidate, CheckQualifiedName(skill)
	case strings.HasPrefix(name, UpstreamRefPrefix):
		return RefUpstream, checkNamePair(strings.TrimPrefix(name, UpstreamRefPrefix), "plugin/skill")
	case strings.HasPrefix(name, SupersededRefPrefix):
		skill, _, ok := SupersededNameOfRef(name)
		if !ok {
			return RefSuperseded, fmt.Errorf("want %sskills/NAME/COMMIT or %splugins/PLUGIN/NAME/COMMIT", SupersededRefPrefix, SupersededRefPrefix)
		}
		return RefSuperseded, CheckQualifiedName(skill)
	}
	return RefOther, nil
}

// checkNamePair checks "a/b" where both parts are skill-like names (b may
// be a plugin's parts, PluginPartsName).
func checkNamePair(rest, form string) error {
	a, b, ok := strings.Cut(rest, "/")
	if !ok || strings.Contains(b, "/") {
		return fmt.Errorf("want %s", form)
	}
	if err := skillfs.CheckName(a); err != nil {
		return err
	}
	return CheckQualifiedName(QualifiedName(a, b))
}

// CorruptRefError reports a ref file that does not hold an object id.
type CorruptRefError = gitdb.CorruptRefError

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

// ShortHash abbreviates h to 12 digits in messages ("nothing" for the
// zero hash).
func ShortHash(h Hash) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.String()[:12]
}
