package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/store/safety"
)

// MergeModeRemote marks a candidate (and the version accepting it) that
// joins two published histories of a skill that diverged on two machines.
const MergeModeRemote MergeMode = "remote-merge"

// Trailers pull writes on a remote-merge candidate.
const (
	TrailerRemote        = "Remote"         // the remote whose history was merged
	TrailerRemoteVersion = "Remote-Version" // the remote's version number at the merge
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

// DivergedMerge is what [Tx.MergeDiverged] did with two diverged
// published histories of a skill: exactly one of Joined (a version
// number above zero), Pending or Candidate describes it.
type DivergedMerge struct {
	// Joined is the version joining both histories when they published
	// the same files.
	Joined Version
	// Candidate is the remote-merge candidate holding the three-way merge
	// (refs/heads/candidates/<skill>), with the files left in conflict.
	Candidate Hash
	Conflicts []string
	// Resolved lists what the skill-aware rules resolved ("PATH:LINE
	// RULE"), also on the candidate's Merge-Resolved trailers.
	Resolved []string
	// Pending is set when the candidate merging these two heads was
	// already there (Candidate is its head); nothing was written.
	Pending bool
	// Superseded is the earlier candidate the new one replaced, if any.
	Superseded Hash
}

// MergeDiverged joins a skill published differently here (lv) and on the
// remote named remote (rv), as pull does: the same files are joined into
// one version at once; different files become a remote-merge candidate
// holding the three-way merge of the two published trees, accepted with
// [Tx.AcceptRemoteMerge] or rejected with [Store.RejectCandidate].
func (tx *Tx) MergeDiverged(lv, rv Version, remote string, skillAware bool) (DivergedMerge, error) {
	var dm DivergedMerge
	name := lv.Skill
	base, err := tx.MergeBase(lv.Commit, rv.Commit)
	if err != nil {
		return dm, err
	}
	if lv.Tree == rv.Tree {
		v, err := tx.writeJoinVersion(name, lv, rv, lv.Tree, ZeroHash, VersionInfo{
			Source: lv.Source, Plugin: lv.Plugin, PluginVersion: lv.PluginVersion, Risk: lv.Risk, Findings: lv.Findings,
			Reason:   fmt.Sprintf("%s and %s of %s published the same files", lv.Name(), rv.Name(), remote),
			Trailers: []Trailer{{TrailerMergeBase, hashOrNone(base)}, {TrailerRemote, remote}},
		})
		if err != nil {
			return dm, err
		}
		dm.Joined = v
		return dm, nil
	}

	candHead, hasCand := tx.Ref(CandidateRef(name))
	if hasCand {
		if m, err := tx.CandidateMerge(candHead); err == nil && len(m.Parents) == 2 && m.Parents[0] == lv.Commit && m.Parents[1] == rv.Commit {
			dm.Pending, dm.Candidate = true, candHead
			return dm, nil
		}
	}
	var baseTree Hash
	if !base.IsZero() {
		bc, err := tx.Commit(base)
		if err != nil {
			return dm, err
		}
		baseTree = bc.Tree
	}
	b, err := tx.loadMergeTree(baseTree)
	if err != nil {
		return dm, fmt.Errorf("merge %s: base: %w", name, err)
	}
	o, err := tx.loadMergeTree(lv.Tree)
	if err != nil {
		return dm, fmt.Errorf("merge %s: %w", name, err)
	}
	t, err := tx.loadMergeTree(rv.Tree)
	if err != nil {
		return dm, fmt.Errorf("merge %s: %w", name, err)
	}
	res, err := merge.MergeTrees(b, o, t, merge.Options{Labels: merge.Labels{
		Ours: "local " + lv.Name(), Base: "base", Theirs: remote + " " + rv.Name(),
	}, SkillAware: skillAware})
	if err != nil {
		return dm, fmt.Errorf("merge %s: %w", name, err)
	}
	files := res.Tree.Files()
	checked, err := safety.Check(name, files, nil, skillfs.DefaultLimits)
	if err != nil {
		return dm, err
	}
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
	if hasCand {
		tx.SetRef(SupersededRef(name, candHead), candHead)
		dm.Superseded = candHead
	}
	sig := tx.signature()
	body, list := "", "none"
	if len(conflicts) > 0 {
		body = "Conflicts to resolve:\n- " + strings.Join(conflicts, "\n- ")
		list = strings.Join(conflicts, ", ")
	}
	c := &Commit{
		Tree: tree, Parents: []Hash{lv.Commit, rv.Commit}, Author: sig, Committer: sig,
		Message: buildMessage(fmt.Sprintf("candidate %s: merge local %s with %s %s", name, lv.Name(), remote, rv.Name()), body, append([]Trailer{
			{TrailerCandidate, name},
			{TrailerSource, lv.Source},
			{TrailerPlugin, lv.Plugin},
			{TrailerPluginVersion, lv.PluginVersion},
			{TrailerMergeMode, string(MergeModeRemote)},
			{TrailerMergeBase, hashOrNone(base)},
			{TrailerConflicts, list},
			{TrailerRisk, checked.Risk.String()},
			{TrailerRemote, remote},
			{TrailerRemoteVersion, strconv.Itoa(rv.Number)},
			{TrailerActor, sig.Name + " <" + sig.Email + ">"},
		}, resolvedTrailers(resolved)...)),
	}
	tx.SetRef(CandidateRef(name), tx.WriteCommit(c))
	dm.Candidate, dm.Conflicts, dm.Resolved = c.Hash, conflicts, resolved
	return dm, nil
}

// writeJoinVersion publishes tree as the version joining the diverged
// heads lv and rv (numbered and parented by the rule above); via, when
// not zero, is the candidate head that holds the merge of both.
func (tx *Tx) writeJoinVersion(name string, lv, rv Version, tree, via Hash, info VersionInfo) (Version, error) {
	first, other := rv, lv
	if lv.Number > rv.Number {
		first, other = lv, rv
	}
	parents := []Hash{first.Commit, other.Commit}
	if !via.IsZero() {
		parents = []Hash{first.Commit, via}
	}
	number := first.Number + 1
	info.MergeMode = MergeModeRemote
	if info.Subject == "" {
		info.Subject = fmt.Sprintf("%s v%d: join v%d and v%d", name, number, lv.Number, rv.Number)
	}
	c := versionCommit(name, number, parents, tree, info, tx.signature())
	tx.WriteCommit(c)
	tx.SetRef(SkillRef(name), c.Hash)
	return ParseVersion(name, c)
}

// AcceptRemoteMerge publishes a remote-merge candidate (see
// [MergeModeRemote]) as the version joining both histories, numbered
// max(local, remote)+1. Like [Store.AcceptCandidate] it is refused while
// conflict markers remain, when the published head moved since the pull,
// and for content above the default risk level.
func (s *Store) AcceptRemoteMerge(ctx context.Context, skill, reason string) (Version, error) {
	var v Version
	err := s.Update(ctx, func(tx *Tx) error {
		var err error
		v, err = tx.AcceptRemoteMerge(skill, reason)
		return err
	})
	return v, err
}

// AcceptRemoteMerge is [Store.AcceptRemoteMerge] inside a transaction.
func (tx *Tx) AcceptRemoteMerge(skill, reason string) (Version, error) {
	c, err := tx.Candidate(skill)
	if err != nil {
		return Version{}, err
	}
	if c.Mode != MergeModeRemote {
		return Version{}, fmt.Errorf("accept %s: the candidate is a %s update, not a merge of two published histories", skill, c.Mode)
	}
	if c.Stale {
		cur, _ := tx.Head(skill)
		return Version{}, fmt.Errorf("accept %s: %w (candidate made on v%d, published is now v%d)", skill, ErrHeadMoved, c.PublishedVersion, cur.Number)
	}
	if len(c.Markers) > 0 {
		return Version{}, &ConflictMarkersError{Skill: skill, Files: c.Markers}
	}
	lv, err := tx.Head(skill)
	if err != nil {
		return Version{}, err
	}
	rv, err := tx.VersionAt(skill, c.Upstream)
	if err != nil {
		return Version{}, err
	}
	files, err := tx.LoadFiles(c.Tree)
	if err != nil {
		return Version{}, err
	}
	checked, err := safety.Check(skill, files, tx.filesOrNil(lv.Tree), skillfs.DefaultLimits)
	if err != nil {
		return Version{}, err
	}
	md, ok := FileMap(files)[SkillFile]
	if !ok {
		return Version{}, fmt.Errorf("accept %s: the candidate has no %s", skill, SkillFile)
	}
	if v := discover.Check(SkillFile, ownName(skill), md.Data, discover.Lenient); !v.Accepted() {
		return Version{}, fmt.Errorf("accept %s: %w", skill, &InvalidSkillError{Dir: "the candidate", Diagnostics: v.Diagnostics})
	}
	if checked.Risk > safety.DefaultAllowedRisk {
		return Version{}, &safety.RiskRefusedError{Skill: skill, Risk: checked.Risk, Allowed: safety.DefaultAllowedRisk, Findings: checked.Findings}
	}
	if reason == "" {
		reason = "accepted merge"
	}
	v, err := tx.writeJoinVersion(skill, lv, rv, c.Tree, c.Head, VersionInfo{
		Source: lv.Source, Plugin: lv.Plugin, PluginVersion: lv.PluginVersion,
		Reason: reason, Risk: checked.Risk, Findings: checked.Findings,
		Subject:  fmt.Sprintf("%s v%d: merge v%d with %s", skill, max(lv.Number, rv.Number)+1, lv.Number, rv.Name()),
		Trailers: []Trailer{{TrailerMergeBase, hashOrNone(c.Base)}},
	})
	if err != nil {
		return Version{}, err
	}
	tx.DeleteRef(CandidateRef(skill))
	return v, nil
}

// rejectRemoteMerge drops a remote-merge candidate and keeps this store's
// files, the way `git merge -s ours` does: the new version joins both
// histories (so the next push fast-forwards and the next pull does not
// propose the same merge again), is numbered max(local, remote)+1 like an
// accepted merge, and has the local tree.
func (tx *Tx) rejectRemoteMerge(skill string, c Candidate, reason string) (Version, error) {
	lv, err := tx.Head(skill)
	if err != nil {
		return Version{}, err
	}
	rv, err := tx.VersionAt(skill, c.Upstream)
	if err != nil {
		return Version{}, err
	}
	if reason == "" {
		reason = "rejected merge"
	}
	tx.SetRef(SupersededRef(skill, c.Head), c.Head)
	v, err := tx.writeJoinVersion(skill, lv, rv, lv.Tree, ZeroHash, VersionInfo{
		Source: lv.Source, Plugin: lv.Plugin, PluginVersion: lv.PluginVersion,
		Reason: reason, Risk: lv.Risk, Findings: lv.Findings,
		Subject:  fmt.Sprintf("%s v%d: keep v%d, reject %s", skill, max(lv.Number, rv.Number)+1, lv.Number, rv.Name()),
		Trailers: []Trailer{{TrailerMergeBase, hashOrNone(c.Base)}},
	})
	if err != nil {
		return Version{}, err
	}
	tx.DeleteRef(CandidateRef(skill))
	return v, nil
}
