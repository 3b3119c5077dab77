package store

import "github.com/skillstore/skillstore/internal/gitdb"

// Ref name prefixes of a store's repository.
const (
	SkillRefPrefix     = "refs/heads/skills/"
	UpstreamRefPrefix  = "refs/upstream/"
	CandidateRefPrefix = "refs/heads/candidates/"
	StateRef           = "refs/skillstore/state"
)

// SkillRef is the ref of a skill's published history.
func SkillRef(name string) string { return SkillRefPrefix + name }

// CorruptRefError reports a ref file that does not hold an object id.
type CorruptRefError = gitdb.CorruptRefError

func short(h Hash) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.String()[:12]
}
