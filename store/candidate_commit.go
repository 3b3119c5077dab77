package store

import (
	"strings"

	"github.com/skillstore/skillstore/store/safety"
)

// CandidateSpec is a candidate to write: sync's update of a plugin's
// skill, pull's merge of two diverged histories, or a local edit merged
// with the published version. Each is a merge commit whose first parent
// is the published head it was made against and whose second is what it
// takes in, with the same trailers, so that review, accept and pull read
// all three alike.
type CandidateSpec struct {
	Skill   string
	Subject string
	Tree    Hash
	// Published is the published head (first parent); Upstream is what
	// the candidate takes in (second parent): an upstream snapshot, the
	// remote's version, or the commit holding a local edit.
	Published, Upstream Hash
	Source              string
	Plugin              string
	PluginVersion       string
	Mode                MergeMode
	// Base is the merge base (zero: none).
	Base      Hash
	Conflicts []string
	Risk      safety.RiskLevel
	// Extra trailers follow the standard ones (a remote merge names the
	// remote and its version).
	Extra []Trailer
	// Resolved lists what the skill-aware rules resolved ("PATH:LINE
	// RULE"), one Merge-Resolved trailer each.
	Resolved []string
}

// writeCandidate queues the candidate's merge commit, made by the
// transaction's actor, and points the skill's candidate ref at it. The
// conflicts are listed in the body for people and in the Conflicts
// trailer ("none" when there are none) for accept.
func WriteCandidate(tx *Tx, c CandidateSpec) Hash {
	sig := tx.Signature()
	body, list := "", "none"
	if len(c.Conflicts) > 0 {
		body = "Conflicts to resolve:\n- " + strings.Join(c.Conflicts, "\n- ")
		list = strings.Join(c.Conflicts, ", ")
	}
	trailers := []Trailer{
		{TrailerCandidate, c.Skill},
		{TrailerSource, c.Source},
		{TrailerPlugin, c.Plugin},
		{TrailerPluginVersion, c.PluginVersion},
		{TrailerMergeMode, string(c.Mode)},
		MergeBaseTrailer(c.Base),
		{TrailerConflicts, list},
		{TrailerRisk, c.Risk.String()},
	}
	trailers = append(trailers, c.Extra...)
	trailers = append(trailers, Trailer{TrailerActor, sig.Name + " <" + sig.Email + ">"})
	for _, r := range c.Resolved {
		trailers = append(trailers, Trailer{TrailerMergeResolved, r})
	}
	h := tx.WriteCommit(&Commit{
		Tree: c.Tree, Parents: []Hash{c.Published, c.Upstream}, Author: sig, Committer: sig,
		Message: BuildMessage(c.Subject, body, trailers),
	})
	tx.SetRef(CandidateRef(c.Skill), h)
	return h
}

// supersedeCandidate retires the pending candidate of skill name, if it
// has one: its head stays reachable under its superseded ref
// ([SupersededRef]) and its candidate ref goes. It returns that head
// (zero: there was no candidate). A newer candidate, a reject, a plugin
// rm and a skill moving to another name all retire a candidate this way.
func Supersede(tx *Tx, name string) Hash {
	cand, ok := tx.Ref(CandidateRef(name))
	if !ok {
		return ZeroHash
	}
	tx.SetRef(SupersededRef(name, cand), cand)
	tx.DeleteRef(CandidateRef(name))
	return cand
}
