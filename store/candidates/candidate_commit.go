package candidates

import (
	"strings"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// Spec is a candidate to write: sync's update of a plugin's
// skill, pull's merge of two diverged histories, or a local edit merged
// with the published version. Each is a merge commit whose first parent
// is the published head it was made against and whose second is what it
// takes in, with the same trailers, so that review, accept and pull read
// all three alike.
type Spec struct {
	Skill   string
	Subject string
	Tree    store.Hash
	// Published is the published head (first parent); Upstream is what
	// the candidate takes in (second parent): an upstream snapshot, the
	// remote's version, or the commit holding a local edit.
	Published, Upstream store.Hash
	Source              string
	Plugin              string
	PluginVersion       string
	Mode                store.MergeMode
	// Base is the merge base (zero: none).
	Base      store.Hash
	Conflicts []string
	Risk      safety.RiskLevel
	// Extra trailers follow the standard ones (a remote merge names the
	// remote and its version).
	Extra []store.Trailer
	// Resolved lists what the skill-aware rules resolved ("PATH:LINE
	// RULE"), one Merge-Resolved trailer each.
	Resolved []string
}

// Write queues the candidate's merge commit, made by the
// transaction's actor, and points the skill's candidate ref at it. The
// conflicts are listed in the body for people and in the Conflicts
// trailer ("none" when there are none) for accept.
func Write(tx *store.Tx, c Spec) store.Hash {
	sig := tx.Signature()
	body, list := "", "none"
	if len(c.Conflicts) > 0 {
		body = "Conflicts to resolve:\n- " + strings.Join(c.Conflicts, "\n- ")
		list = strings.Join(c.Conflicts, ", ")
	}
	trailers := []store.Trailer{
		{Key: store.TrailerCandidate, Value: c.Skill},
		{Key: store.TrailerSource, Value: c.Source},
		{Key: store.TrailerPlugin, Value: c.Plugin},
		{Key: store.TrailerPluginVersion, Value: c.PluginVersion},
		{Key: store.TrailerMergeMode, Value: string(c.Mode)},
		store.MergeBaseTrailer(c.Base),
		{Key: store.TrailerConflicts, Value: list},
		{Key: store.TrailerRisk, Value: c.Risk.String()},
	}
	trailers = append(trailers, c.Extra...)
	trailers = append(trailers, store.Trailer{Key: store.TrailerActor, Value: sig.Name + " <" + sig.Email + ">"})
	for _, r := range c.Resolved {
		trailers = append(trailers, store.Trailer{Key: store.TrailerMergeResolved, Value: r})
	}
	h := tx.WriteCommit(&store.Commit{
		Tree: c.Tree, Parents: []store.Hash{c.Published, c.Upstream}, Author: sig, Committer: sig,
		Message: store.BuildMessage(c.Subject, body, trailers),
	})
	tx.SetRef(store.CandidateRef(c.Skill), h)
	return h
}

// Supersede retires the pending candidate of skill name, if it
// has one: its head stays reachable under its superseded ref
// ([store.SupersededRef]) and its candidate ref goes. It returns that head
// (zero: there was no candidate). A reject, a plugin rm and a skill moving
// to another name retire a candidate this way; gc drops the superseded
// ref once it tells nothing (see [store.Reader.SupersededNeeded]) past
// its grace period.
func Supersede(tx *store.Tx, name string) store.Hash {
	cand, ok := tx.Ref(store.CandidateRef(name))
	if !ok {
		return store.ZeroHash
	}
	tx.SetRef(store.SupersededRef(name, cand), cand)
	tx.DeleteRef(store.CandidateRef(name))
	return cand
}

// Replace retires the pending candidate of skill name for a newer one of
// the same skill (a newer upstream, a pull with newer remote versions, a
// local edit to merge): like Supersede, except that a candidate that
// never left this store (no remote's tracking ref points at it) and holds
// no person's commits is dropped, not kept: no one else can hold it, and
// its files are the merge of versions the history keeps. So a conflict
// that waits while pulls and syncs bring newer versions leaves no trail of
// superseded refs. It returns the retired head (zero: none).
func Replace(tx *store.Tx, name string) store.Hash {
	cand, ok := tx.Ref(store.CandidateRef(name))
	if !ok {
		return store.ZeroHash
	}
	tx.DeleteRef(store.CandidateRef(name))
	if tx.SupersededNeeded(name, cand) {
		tx.SetRef(store.SupersededRef(name, cand), cand)
	}
	return cand
}
