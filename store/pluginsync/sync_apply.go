package pluginsync

import (
	"errors"
	"fmt"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/safety"
)

// The apply steps of sync: one small function per decision of decide
// (sync_decide.go), called by syncSkillTo (sync_classify.go).

// pendingCandidate reads the skill's candidate branch: its head and what
// it means for an update of the published head to the snapshot u.
func readPending(tx *store.Tx, name string, head, u store.Hash) (store.Hash, pendingCandidate, error) {
	candHead, hasCand := tx.Ref(store.CandidateRef(name))
	if !hasCand {
		return store.ZeroHash, noCandidate, nil
	}
	// A branch without skillstore's merge commit (rewritten by hand) is
	// superseded like any stale candidate.
	m, err := candidates.MergeCommit(tx.Reader, candHead)
	switch {
	case errors.Is(err, candidates.ErrNoMergeCommit):
		return candHead, otherCandidate, nil
	case err != nil:
		return store.ZeroHash, noCandidate, err
	case store.MergeMode(m.Trailer(store.TrailerMergeMode)) == store.MergeModeRemote,
		store.MergeMode(m.Trailer(store.TrailerMergeMode)) == store.MergeModeLocalEdit:
		// A local edit merged with the published version (a target's, or
		// an installed copy adopt took over) holds what no upstream
		// update has: the update waits behind it, as behind pull's merge,
		// and is merged once it is reviewed (as MergeLocalEdit waits
		// behind an update's candidate).
		return candHead, remoteMergeCandidate, nil
	case m.Parents[0] == head && m.Parents[1] == u:
		return candHead, sameCandidate, nil
	}
	return candHead, otherCandidate, nil
}

// applyMirror publishes a new skill's upstream tree as v1, taking the
// snapshot in.
func applyMirror(tx *store.Tx, p *plugins.Plugin, up *plugins.Upstream, name string, sk *skillIn, upRef string, allow safety.RiskLevel, sr *SkillReport) error {
	checked, err := checkUpstream(tx, name, sk, nil, sr, allow)
	if err != nil {
		return err
	}
	tree, err := plugins.WriteUpstreamTree(tx, sk.UpstreamSkill)
	if err != nil {
		return err
	}
	v, err := tx.CommitVersion(name, tree, store.VersionInfo{
		Source: p.Label(), Plugin: p.ID, PluginVersion: up.Layout.Version,
		MergeMode: store.MergeModeMirror, Risk: checked.Risk, Findings: checked.Findings,
		Subject:  fmt.Sprintf("%s v1: mirror of plugin %s", name, p.ID),
		Trailers: upstreamTrailers(p, up, sk),
	})
	if err != nil {
		return err
	}
	tx.SetRef(upRef, v.Commit)
	sr.NewVersion, sr.Upstream, sr.Risk, sr.Findings = v.Number, v.Commit.String(), checked.Risk.String(), checked.Findings
	return nil
}

// writeSnapshot records a new upstream tree as the next commit of the
// skill's upstream ref and returns it.
func writeSnapshot(tx *store.Tx, p *plugins.Plugin, up *plugins.Upstream, sk *skillIn, prevU store.Hash, hasPrevU bool) (store.Hash, error) {
	tree, err := plugins.WriteUpstreamTree(tx, sk.UpstreamSkill)
	if err != nil {
		return store.ZeroHash, err
	}
	var parents []store.Hash
	if hasPrevU {
		parents = []store.Hash{prevU}
	}
	return plugins.WriteSnapshot(tx, p, up, sk.UpstreamSkill, tree, parents, leftOutTrailers(sk)...), nil
}

// applyAlreadyApplied records that the published tree already holds the
// upstream update: a version with the same tree whose parents take the
// snapshot in, so it becomes the accepted base.
func applyAlreadyApplied(tx *store.Tx, p *plugins.Plugin, up *plugins.Upstream, name string, headC *store.Commit, u, base store.Hash, sr *SkillReport) error {
	headV, err := store.ParseVersion(name, headC)
	if err != nil {
		return err
	}
	v, err := tx.CommitVersion(name, headC.Tree, store.VersionInfo{
		Source: p.Label(), Plugin: p.ID, PluginVersion: up.Layout.Version,
		MergeMode: store.MergeModeAlreadyApplied, Risk: headV.Risk, ExtraParents: []store.Hash{u},
		Subject:  fmt.Sprintf("%s v%d: upstream of plugin %s already applied", name, headV.Number+1, p.ID),
		Trailers: []store.Trailer{store.MergeBaseTrailer(base)},
	})
	if err != nil {
		return err
	}
	sr.NewVersion = v.Number
	return nil
}

// applyFastForward publishes the upstream tree as the next version.
func applyFastForward(tx *store.Tx, p *plugins.Plugin, up *plugins.Upstream, name string, headC *store.Commit, u, base, theirs store.Hash, checked *safety.Report, sr *SkillReport) error {
	headV, err := store.ParseVersion(name, headC)
	if err != nil {
		return err
	}
	v, err := tx.CommitVersion(name, theirs, store.VersionInfo{
		Source: p.Label(), Plugin: p.ID, PluginVersion: up.Layout.Version,
		MergeMode: store.MergeModeFastForward, Risk: checked.Risk, Findings: checked.Findings, ExtraParents: []store.Hash{u},
		Subject:  fmt.Sprintf("%s v%d: update from plugin %s", name, headV.Number+1, p.ID),
		Trailers: []store.Trailer{store.MergeBaseTrailer(base)},
	})
	if err != nil {
		return err
	}
	sr.NewVersion = v.Number
	return nil
}
