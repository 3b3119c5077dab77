package pluginsync

import (
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store/safety"
)

// TestDecide is sync's whole policy as a table: the four cases of the
// design (B base, P published, U upstream), a first mirror, updates that
// wait behind a candidate, and what review and risk do to a fast-forward.
func TestDecide(t *testing.T) {
	b, p, u := skillfs.BlobID([]byte("B")), skillfs.BlobID([]byte("P")), skillfs.BlobID([]byte("U"))
	for _, tc := range []struct {
		name string
		in   skillState
		want decision
	}{
		{"first mirror", skillState{Theirs: u}, decision{ClassNew, stepMirror, false}},
		{"unchanged", skillState{Published: true, Base: b, Ours: p, Theirs: b}, decision{ClassUnchanged, stepNone, true}},
		{"unchanged, no local edit", skillState{Published: true, Base: b, Ours: b, Theirs: b}, decision{ClassUnchanged, stepNone, true}},
		{"already applied", skillState{Published: true, Base: b, Ours: u, Theirs: u}, decision{ClassAlreadyApplied, stepAdvanceBase, true}},
		{"already applied, no base", skillState{Published: true, Ours: u, Theirs: u}, decision{ClassAlreadyApplied, stepAdvanceBase, true}},
		{"fast-forward", skillState{Published: true, Base: b, Ours: b, Theirs: u}, decision{ClassFastForward, stepPublish, true}},
		{"fast-forward, medium risk", skillState{Published: true, Base: b, Ours: b, Theirs: u, Risk: safety.RiskMedium}, decision{ClassFastForward, stepPublish, true}},
		{"fast-forward, high risk", skillState{Published: true, Base: b, Ours: b, Theirs: u, Risk: safety.RiskHigh}, decision{ClassFastForward, stepReview, true}},
		{"fast-forward, review policy", skillState{Published: true, Base: b, Ours: b, Theirs: u, Review: true}, decision{ClassFastForward, stepReview, true}},
		{"fast-forward, critical risk a person accepted for this tree", skillState{Published: true, Base: b, Ours: b, Theirs: u, Risk: safety.RiskCritical, RiskAccepted: true}, decision{ClassFastForward, stepPublish, true}},
		{"fast-forward, accepted risk under the review policy", skillState{Published: true, Base: b, Ours: b, Theirs: u, Risk: safety.RiskCritical, RiskAccepted: true, Review: true}, decision{ClassFastForward, stepReview, true}},
		{"three-way", skillState{Published: true, Base: b, Ours: p, Theirs: u}, decision{ClassThreeWay, stepMerge, true}},
		{"three-way, no common base", skillState{Published: true, Ours: p, Theirs: u}, decision{ClassThreeWay, stepMerge, true}},
		{"three-way, risk does not matter", skillState{Published: true, Base: b, Ours: p, Theirs: u, Risk: safety.RiskHigh, Review: true}, decision{ClassThreeWay, stepMerge, true}},
		{"candidate for this update waits", skillState{Published: true, Base: b, Ours: p, Theirs: u, Candidate: sameCandidate}, decision{ClassPending, stepNone, false}},
		{"candidate for this fast-forward waits", skillState{Published: true, Base: b, Ours: b, Theirs: u, Candidate: sameCandidate}, decision{ClassPending, stepNone, false}},
		{"older candidate is superseded", skillState{Published: true, Base: b, Ours: p, Theirs: u, Candidate: otherCandidate}, decision{ClassThreeWay, stepMerge, true}},
		{"upstream back to base retires a candidate", skillState{Published: true, Base: b, Ours: p, Theirs: b, Candidate: sameCandidate}, decision{ClassUnchanged, stepNone, true}},
		{"pull's merge holds everything", skillState{Published: true, Base: b, Ours: b, Theirs: u, Candidate: remoteMergeCandidate}, decision{ClassPending, stepNone, false}},
		{"pull's merge holds even unchanged", skillState{Published: true, Base: b, Ours: p, Theirs: b, Candidate: remoteMergeCandidate}, decision{ClassPending, stepNone, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decide(tc.in); got != tc.want {
				t.Errorf("decide(%+v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}
