package pluginsync

import (
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// Class is how sync classifies one skill's upstream update: the four cases
// of the design (B = accepted base, P = published, U = new upstream), plus
// a first mirror, an update that waits behind a candidate, and a skill
// upstream no longer has.
type Class string

// The classes of an upstream update.
const (
	ClassNew            Class = "new"               // first mirror of a skill: v1 is the snapshot
	ClassUnchanged      Class = "unchanged"         // tree(U) == tree(B)
	ClassAlreadyApplied Class = "already-applied"   // tree(P) == tree(U) != tree(B): the base advances
	ClassFastForward    Class = "fast-forward"      // tree(P) == tree(B) != tree(U): publish U
	ClassThreeWay       Class = "three-way"         // all three differ: a candidate
	ClassPending        Class = "candidate-pending" // a candidate for this very update already waits
	ClassRemoved        Class = "removed-upstream"  // the upstream no longer has the skill
	ClassLeftOut        Class = "left-out"          // refused whole: not added, or held at its published version (see intake.go)
)

// pendingCandidate is what waits on a skill's candidate branch, as far as
// classifying a new upstream update is concerned.
type pendingCandidate int

const (
	// noCandidate: no candidate branch.
	noCandidate pendingCandidate = iota
	// otherCandidate: a candidate made for an older update (or rewritten
	// by hand): a newer update supersedes it.
	otherCandidate
	// sameCandidate: a candidate made from this published version and
	// this very upstream snapshot: the update already waits for review.
	sameCandidate
	// remoteMergeCandidate: a merge of two published histories that pull
	// made; every upstream update waits behind it.
	remoteMergeCandidate
)

// skillState is everything the classification of one upstream update
// depends on. Trees are git tree ids, so comparing them is comparing ids.
type skillState struct {
	// Published reports that the skill has a published version.
	Published bool
	// Base is the tree of the accepted upstream base (zero: none), Ours
	// the published tree, Theirs the new upstream tree.
	Base, Ours, Theirs store.Hash
	Candidate          pendingCandidate
	// Review is the policy: this run or the plugin asks to review every
	// update instead of publishing fast-forwards.
	Review bool
	// Risk is the safety check's level for the upstream tree. Only a
	// fast-forward consults it (a high risk holds it for review), so the
	// caller may leave it unset until decide says ClassFastForward.
	Risk safety.RiskLevel
	// RiskAccepted: a person accepted this very tree's risk ('plugin
	// trust PLUGIN:SKILL'), so it is not held for review again.
	RiskAccepted bool
}

// step is the one write sync makes for a decision.
type step int

const (
	stepNone        step = iota // nothing to write
	stepMirror                  // publish the upstream tree as v1
	stepAdvanceBase             // a version with the same tree that takes the upstream snapshot in
	stepPublish                 // publish the upstream tree (fast-forward)
	stepReview                  // a candidate holding the upstream tree, for review
	stepMerge                   // merge the three trees into a candidate
)

// decision is what sync does with one skill's upstream update.
type decision struct {
	Class Class
	Step  step
	// Supersede retires a pending candidate made for an older update.
	Supersede bool
}

// decide classifies an upstream update: a pure function of the trees, the
// pending candidate, the review policy and the risk, so that the whole
// policy of sync reads as one table (sync_decide_test.go).
func decide(s skillState) decision {
	switch {
	case !s.Published:
		return decision{Class: ClassNew, Step: stepMirror}
	case s.Candidate == remoteMergeCandidate:
		return decision{Class: ClassPending, Step: stepNone}
	case s.Theirs == s.Base:
		return decision{Class: ClassUnchanged, Step: stepNone, Supersede: true}
	case s.Ours == s.Theirs:
		return decision{Class: ClassAlreadyApplied, Step: stepAdvanceBase, Supersede: true}
	case s.Candidate == sameCandidate:
		return decision{Class: ClassPending, Step: stepNone}
	case s.Ours == s.Base && (s.Review || s.Risk >= safety.RiskHigh && !s.RiskAccepted):
		return decision{Class: ClassFastForward, Step: stepReview, Supersede: true}
	case s.Ours == s.Base:
		return decision{Class: ClassFastForward, Step: stepPublish, Supersede: true}
	}
	return decision{Class: ClassThreeWay, Step: stepMerge, Supersede: true}
}
