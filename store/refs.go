package store

import "github.com/skillstore/skillstore/internal/gitdb"

// Ref name prefixes of a store's repository.
const (
	SkillRefPrefix     = "refs/heads/skills/"
	PluginRefPrefix    = "refs/heads/plugins/"
	UpstreamRefPrefix  = "refs/upstream/"
	CandidateRefPrefix = "refs/heads/candidates/"
	StateRef           = "refs/skillstore/state"
)

// SkillRef is the ref of a skill's published history:
// refs/heads/skills/NAME for a managed skill, refs/heads/plugins/PLUGIN/NAME
// for a plugin's skill "PLUGIN:NAME" (see [SplitName]).
func SkillRef(name string) string {
	if plugin, skill := SplitName(name); plugin != "" {
		return PluginRefPrefix + plugin + "/" + skill
	}
	return SkillRefPrefix + name
}

// CorruptRefError reports a ref file that does not hold an object id.
type CorruptRefError = gitdb.CorruptRefError

func short(h Hash) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.String()[:12]
}
