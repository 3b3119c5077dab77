package candidates

import (
	"context"
	"fmt"
	"strconv"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// Version numbers after a merge. Each side has numbered its own versions
// v1, v2, … along first parents, so after they diverge both may have a v5.
// The version joining them takes max(local, remote)+1, and its first
// parent is the side with the higher number (the remote's on a tie, since
// other machines already know its numbers); the other side is reachable
// through the candidate, its second parent. So numbers keep counting down
// by one along first parents, the version after a merge is higher than
// every version either machine had, and pushing it fast-forwards the
// remote. The numbers of the side that is not the first parent are
// superseded: those versions stay in the history and resolve by commit
// prefix (NAME@<commit>), while NAME@vN names the first-parent line.

// DivergedMerge is what [MergeDiverged] did with two diverged
// published histories of a skill: exactly one of Joined (a version
// number above zero), Pending or Candidate describes it.
type DivergedMerge struct {
	// Joined is the version joining both histories when they published
	// the same files.
	Joined store.Version
	// Candidate is the remote-merge candidate holding the three-way merge
	// (refs/heads/candidates/<skill>), with the files left in conflict.
	Candidate store.Hash
	Conflicts []string
	// Resolved lists what the skill-aware rules resolved ("PATH:LINE
	// RULE"), also on the candidate's Merge-Resolved trailers.
	Resolved []string
	// Pending is set when the candidate merging these two heads was
	// already there (Candidate is its head); nothing was written.
	Pending bool
	// Superseded is the earlier candidate the new one replaced, if any.
	Superseded store.Hash
}

// MergeDiverged joins a skill published differently here (lv) and on the
// remote named remote (rv), as pull does: the same files are joined into
// one version at once; different files become a remote-merge candidate
// holding the three-way merge of the two published trees, accepted with
// [AcceptRemoteMerge] or rejected with [Reject]. mo's SkillAware and Ahead
// are the merge's (its labels are set here).
func MergeDiverged(tx *store.Tx, lv, rv store.Version, remote string, mo merge.Options) (DivergedMerge, error) {
	var dm DivergedMerge
	name := lv.Skill
	base, err := tx.MergeBase(lv.Commit, rv.Commit)
	if err != nil {
		return dm, err
	}
	if lv.Tree == rv.Tree {
		v, err := writeJoinVersion(tx, name, lv, rv, lv.Tree, store.ZeroHash, store.VersionInfo{
			Source: lv.Source, Plugin: lv.Plugin, PluginVersion: lv.PluginVersion, Risk: lv.Risk, Findings: lv.Findings,
			Reason:   fmt.Sprintf("%s and %s of %s published the same files", lv.Name(), rv.Name(), remote),
			Trailers: []store.Trailer{store.MergeBaseTrailer(base), {Key: store.TrailerRemote, Value: remote}},
		})
		if err != nil {
			return dm, err
		}
		dm.Joined = v
		return dm, nil
	}

	candHead, hasCand := tx.Ref(store.CandidateRef(name))
	if hasCand {
		if m, err := MergeCommit(tx.Reader, candHead); err == nil && len(m.Parents) == 2 && m.Parents[0] == lv.Commit && m.Parents[1] == rv.Commit {
			dm.Pending, dm.Candidate = true, candHead
			return dm, nil
		}
	}
	var baseTree store.Hash
	if !base.IsZero() {
		bc, err := tx.Commit(base)
		if err != nil {
			return dm, err
		}
		baseTree = bc.Tree
	}
	b, err := LoadMergeTree(tx.Reader, baseTree)
	if err != nil {
		return dm, fmt.Errorf("merge %s: base: %w", name, err)
	}
	o, err := LoadMergeTree(tx.Reader, lv.Tree)
	if err != nil {
		return dm, fmt.Errorf("merge %s: %w", name, err)
	}
	t, err := LoadMergeTree(tx.Reader, rv.Tree)
	if err != nil {
		return dm, fmt.Errorf("merge %s: %w", name, err)
	}
	mo.Labels = merge.Labels{Ours: "local " + lv.Name(), Base: "base", Theirs: remote + " " + rv.Name()}
	res, err := merge.MergeTrees(b, o, t, mo)
	if err != nil {
		return dm, fmt.Errorf("merge %s: %w", name, err)
	}
	files := res.Tree.Files()
	checked, err := safety.Check(name, files, nil, skillfs.DefaultLimits)
	if err != nil {
		return dm, err
	}
	checked = tx.ScanExternal(tx.Context(), name, checked, files, nil)
	tree, err := tx.WriteTree(files)
	if err != nil {
		return dm, fmt.Errorf("merge %s: %w", name, err)
	}
	var conflicts, resolved []string
	for _, c := range res.Conflicts {
		conflicts = append(conflicts, fmt.Sprintf("%s (%s)", c.Path, c.Kind))
	}
	for _, r := range res.Resolved {
		resolved = append(resolved, r.String())
	}
	dm.Superseded = Replace(tx, name)
	h := Write(tx, Spec{
		Skill: name, Subject: fmt.Sprintf("candidate %s: merge local %s with %s %s", name, lv.Name(), remote, rv.Name()),
		Tree: tree, Published: lv.Commit, Upstream: rv.Commit,
		Source: lv.Source, Plugin: lv.Plugin, PluginVersion: lv.PluginVersion,
		Mode: store.MergeModeRemote, Base: base, Conflicts: conflicts, Risk: checked.Risk,
		Extra:    []store.Trailer{{Key: store.TrailerRemote, Value: remote}, {Key: store.TrailerRemoteVersion, Value: strconv.Itoa(rv.Number)}},
		Resolved: resolved,
	})
	dm.Candidate, dm.Conflicts, dm.Resolved = h, conflicts, resolved
	return dm, nil
}

// writeJoinVersion publishes tree as the version joining the diverged
// heads lv and rv (numbered and parented by the rule above); via, when
// not zero, is the candidate head that holds the merge of both.
func writeJoinVersion(tx *store.Tx, name string, lv, rv store.Version, tree, via store.Hash, info store.VersionInfo) (store.Version, error) {
	first, other := rv, lv
	if lv.Number > rv.Number {
		first, other = lv, rv
	}
	parents := []store.Hash{first.Commit, other.Commit}
	if !via.IsZero() {
		parents = []store.Hash{first.Commit, via}
	}
	number := first.Number + 1
	info.MergeMode = store.MergeModeRemote
	if info.Subject == "" {
		info.Subject = fmt.Sprintf("%s v%d: join v%d and v%d", name, number, lv.Number, rv.Number)
	}
	return tx.WriteVersion(name, number, parents, tree, info)
}

// AcceptRemoteMerge publishes a remote-merge candidate (see
// [store.MergeModeRemote]) as the version joining both histories, numbered
// max(local, remote)+1. Like [Accept] it is refused while
// conflict markers remain, when the published head moved since the pull,
// and for content above the default risk level.
func AcceptRemoteMerge(ctx context.Context, s *store.Store, skill, reason string) (store.Version, error) {
	var v store.Version
	err := s.Update(ctx, func(tx *store.Tx) error {
		var err error
		v, err = acceptRemoteMerge(tx, skill, reason)
		return err
	})
	return v, err
}

// acceptRemoteMerge is [AcceptRemoteMerge] inside a transaction.
func acceptRemoteMerge(tx *store.Tx, skill, reason string) (store.Version, error) {
	c, err := Get(tx.Reader, skill)
	if err != nil {
		return store.Version{}, err
	}
	if c.Mode != store.MergeModeRemote {
		return store.Version{}, fmt.Errorf("accept %s: the candidate is a %s update, not a merge of two published histories", skill, c.Mode)
	}
	if c.Stale {
		cur, _ := tx.Head(skill)
		return store.Version{}, fmt.Errorf("accept %s: %w (candidate made on v%d, published is now v%d)", skill, ErrHeadMoved, c.PublishedVersion, cur.Number)
	}
	if len(c.Markers) > 0 {
		return store.Version{}, &ConflictMarkersError{Skill: skill, Files: c.Markers}
	}
	lv, err := tx.Head(skill)
	if err != nil {
		return store.Version{}, err
	}
	rv, err := tx.VersionAt(skill, c.Upstream)
	if err != nil {
		return store.Version{}, err
	}
	files, err := tx.LoadFiles(c.Tree)
	if err != nil {
		return store.Version{}, err
	}
	checked, err := safety.CheckUpdate(skill, files, tx.FilesOrNil(lv.Tree), skillfs.DefaultLimits)
	if err != nil {
		return store.Version{}, err
	}
	checked = tx.ScanExternal(tx.Context(), skill, checked, files, tx.FilesOrNil(lv.Tree))
	md, ok := store.FileMap(files)[store.SkillFile]
	if !ok {
		return store.Version{}, fmt.Errorf("accept %s: the candidate has no %s", skill, store.SkillFile)
	}
	if v := discover.Check(store.SkillFile, store.OwnName(skill), md.Data, discover.Lenient); !v.Accepted() {
		return store.Version{}, fmt.Errorf("accept %s: %w", skill, &store.InvalidSkillError{Dir: "the candidate", Diagnostics: v.Diagnostics})
	}
	if checked.Risk > safety.DefaultAllowedRisk {
		return store.Version{}, &safety.RiskRefusedError{Skill: skill, Risk: checked.Risk, Allowed: safety.DefaultAllowedRisk, Findings: checked.Findings}
	}
	if reason == "" {
		reason = "accepted merge"
	}
	v, err := writeJoinVersion(tx, skill, lv, rv, c.Tree, c.Head, store.VersionInfo{
		Source: lv.Source, Plugin: lv.Plugin, PluginVersion: lv.PluginVersion,
		Reason: reason, Risk: checked.Risk, Findings: checked.Findings,
		Subject:  fmt.Sprintf("%s v%d: merge v%d with %s", skill, max(lv.Number, rv.Number)+1, lv.Number, rv.Name()),
		Trailers: []store.Trailer{store.MergeBaseTrailer(c.Base)},
	})
	if err != nil {
		return store.Version{}, err
	}
	tx.DeleteRef(store.CandidateRef(skill))
	return v, nil
}

// rejectRemoteMerge drops a remote-merge candidate and keeps this store's
// files, the way `git merge -s ours` does: the new version joins both
// histories (so the next push fast-forwards and the next pull does not
// propose the same merge again), is numbered max(local, remote)+1 like an
// accepted merge, and has the local tree.
func rejectRemoteMerge(tx *store.Tx, skill string, c Candidate, reason string) (store.Version, error) {
	lv, err := tx.Head(skill)
	if err != nil {
		return store.Version{}, err
	}
	rv, err := tx.VersionAt(skill, c.Upstream)
	if err != nil {
		return store.Version{}, err
	}
	if reason == "" {
		reason = "rejected merge"
	}
	v, err := writeJoinVersion(tx, skill, lv, rv, lv.Tree, store.ZeroHash, store.VersionInfo{
		Source: lv.Source, Plugin: lv.Plugin, PluginVersion: lv.PluginVersion,
		Reason: reason, Risk: lv.Risk, Findings: lv.Findings,
		Subject:  fmt.Sprintf("%s v%d: keep v%d, reject %s", skill, max(lv.Number, rv.Number)+1, lv.Number, rv.Name()),
		Trailers: []store.Trailer{store.MergeBaseTrailer(c.Base)},
	})
	if err != nil {
		return store.Version{}, err
	}
	Supersede(tx, skill)
	return v, nil
}
