package store

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/store/safety"
)

// Trailer keys sync writes on snapshots and candidates.
const (
	TrailerCandidate    = "Skill-Candidate" // marks a candidate's merge commit
	TrailerMergeBase    = "Merge-Base"
	TrailerConflicts    = "Conflicts"
	TrailerSourceURL    = "Source-URL"
	TrailerSourceCommit = "Source-Commit"
	TrailerUpstreamPath = "Upstream-Path"
)

// TrailerMergeResolved is one conflict the skill-aware rules resolved in a
// candidate's merge, "PATH:LINE RULE"; one trailer per conflict.
const TrailerMergeResolved = "Merge-Resolved"

// syncSkill brings one owned skill up to date with its upstream tree. A
// tree refused for its content leaves the skill out (see leaveOut): the
// report says so, with no error.
func (tx *Tx) syncSkill(p *Plugin, up *upstream, sk *upstreamSkill, opts SyncOptions, cc *commitCache) SkillReport {
	sr := SkillReport{Skill: sk.name}
	if err := tx.syncSkillTo(p, up, sk, opts, cc, &sr); err != nil {
		if !leaveOut(err, &sr) {
			sr.Error = skillError(err)
		} else {
			opts.markHeld(&sr, QualifiedName(p.ID, sk.name), sk.tree)
		}
	}
	return sr
}

// syncSkillTo gathers what the classification of one skill depends on
// (writing the new upstream snapshot on the way), lets decide classify it,
// and makes the one write the decision calls for.
func (tx *Tx) syncSkillTo(p *Plugin, up *upstream, sk *upstreamSkill, opts SyncOptions, cc *commitCache, sr *SkillReport) error {
	name := QualifiedName(p.ID, sk.name)
	upRef := UpstreamRef(p.ID, sk.name)
	prevU, hasPrevU := tx.Ref(upRef)
	head, hasHead := tx.Ref(SkillRef(name))
	var prevTree Hash
	var prevC *Commit
	if hasPrevU {
		c, err := cc.get(prevU)
		if err != nil {
			return err
		}
		prevTree, prevC = c.Tree, c
	}
	// A tree other than the last snapshot's may hold files the store never
	// keeps: they are left out before anything looks at it (intake.go).
	if !hasHead || !hasPrevU || prevTree != sk.tree {
		if err := tx.intake(sk); err != nil {
			return err
		}
	}
	// The snapshot records the files it left out: a new list (or a new
	// tree) is a new snapshot, reported; the same one is quiet.
	newSnapshot := !hasPrevU || prevTree != sk.tree || !sameLeftOut(prevC, sk.leftOut)
	allow, accepted := opts.allowed(p, sk)

	// The upstream ref is queued before the published and candidate refs,
	// so a sync killed between the two leaves a snapshot the next run
	// classifies exactly as this one did.
	tx.SetRef(upRef, prevU)
	if !hasHead {
		sr.Classification = decide(skillState{}).Class
		sr.LeftOut, sr.RiskAccepted = sk.leftOut, accepted
		return tx.applyMirror(p, up, name, sk, upRef, allow, sr)
	}

	headC, err := cc.get(head)
	if err != nil {
		return err
	}
	headNum, err := versionNumber(name, headC)
	if err != nil {
		return err
	}
	sr.OldVersion = headNum

	u := prevU
	var checked *safety.Report
	if newSnapshot {
		// A new upstream tree: check it, then snapshot it.
		s, err := tx.checkUpstream(sk, tx.filesOrNil(headC.Tree), sr, allow)
		if err != nil {
			return err
		}
		checked = &s
		if u, err = tx.writeSnapshot(p, up, sk, upRef, prevU, hasPrevU); err != nil {
			return err
		}
		sr.LeftOut = sk.leftOut
	}
	sr.Upstream = u.String()

	base, err := mergeBase(cc.get, head, u)
	if err != nil {
		return err
	}
	var baseTree Hash
	if !base.IsZero() {
		bc, err := cc.get(base)
		if err != nil {
			return err
		}
		baseTree = bc.Tree
	}
	candHead, cand, err := tx.pendingCandidate(name, head, u)
	if err != nil {
		return err
	}
	state := skillState{
		Published: true, Base: baseTree, Ours: headC.Tree, Theirs: sk.tree,
		Candidate: cand, Review: opts.Review || p.Review,
	}
	d := decide(state)
	if d.Class == ClassFastForward || d.Class == ClassThreeWay {
		// Only now is the risk of an unchanged upstream tree needed.
		if checked == nil {
			s, err := tx.checkUpstream(sk, tx.filesOrNil(state.Ours), sr, allow)
			if err != nil {
				return err
			}
			checked = &s
		}
		state.Risk = checked.Risk
		state.RiskAccepted = accepted && checked.Risk > safety.DefaultAllowedRisk
		d = decide(state)
		sr.Risk, sr.RiskAccepted = checked.Risk.String(), state.RiskAccepted
	}
	sr.Classification = d.Class
	supersede := func() {
		if d.Supersede && cand != noCandidate {
			tx.SetRef(SupersededRef(name, candHead), candHead)
			tx.DeleteRef(CandidateRef(name))
			sr.Superseded = candHead.String()
		}
	}
	if d.Step != stepMerge {
		supersede()
	}

	switch d.Step {
	case stepNone:
		if d.Class == ClassPending {
			sr.Candidate = candHead.String()
		}
		return nil
	case stepAdvanceBase:
		return tx.applyAlreadyApplied(p, up, name, headC, u, base, sr)
	case stepPublish:
		return tx.applyFastForward(p, up, name, headC, u, base, sk.tree, checked, sr)
	case stepReview:
		c, err := tx.writeCandidate(p, up, name, head, u, base, sk.tree, MergeModeFastForward, nil, checked.Risk)
		if err != nil {
			return err
		}
		sr.Candidate = c.String()
		return nil
	case stepMerge:
		headV, err := ParseVersion(name, headC)
		if err != nil {
			return err
		}
		merged, conflicts, resolved, err := tx.mergeSkill(name, headV, p, up, sk, baseTree, state.Ours, opts.SkillAware)
		if err != nil {
			return err // the older candidate stays: nothing replaces it
		}
		supersede()
		c, err := tx.writeCandidate(p, up, name, head, u, base, merged, MergeModeThreeWay, conflicts, checked.Risk, resolved...)
		if err != nil {
			return err
		}
		sr.Candidate, sr.Conflicts, sr.MergeResolved = c.String(), conflicts, resolved
		return nil
	}
	return fmt.Errorf("sync %s: no step for class %s", name, d.Class)
}

// versionNumber is the number versionFromCommit reads from a version
// commit, with the same errors, without decoding the rest of the message:
// it is all an unchanged skill needs.
func versionNumber(name string, c *Commit) (int, error) {
	n := 0
	for _, t := range c.Trailers() {
		if t.Key != TrailerVersion {
			continue
		}
		v, err := strconv.Atoi(t.Value)
		if err != nil || v < 1 {
			return 0, fmt.Errorf("%s: commit %s has a bad %s trailer %q", name, short(c.Hash), TrailerVersion, t.Value)
		}
		n = v
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: commit %s has no %s trailer", name, short(c.Hash), TrailerVersion)
	}
	return n, nil
}

// checkUpstream runs the store's safety check and validation policy
// (discover.Check, lenient) on an upstream tree. A tree the store never
// accepts, or one above the allowed risk, is an error; the policy's
// warnings go to sr.
func (tx *Tx) checkUpstream(sk *upstreamSkill, previous []File, sr *SkillReport, allow safety.RiskLevel) (safety.Report, error) {
	files, err := tx.loadUpstreamFiles(sk)
	if err != nil {
		return safety.Report{}, err
	}
	rep, err := safety.Check(sk.name, files, previous, skillfs.DefaultLimits)
	if err != nil {
		return safety.Report{}, err
	}
	if sk.parts {
		rep = tx.withPluginFindings(rep, files, previous)
	}
	if f, ok := FileMap(files)[SkillFile]; ok {
		v := discover.Check(path.Join(sk.path, SkillFile), sk.name, f.Data, discover.Lenient)
		if !v.Accepted() {
			return safety.Report{}, &InvalidSkillError{Dir: sk.path, Diagnostics: v.Diagnostics}
		}
		sr.Warnings = append(sr.Warnings, v.Warnings()...)
	}
	if rep.Risk > allow {
		return safety.Report{}, &safety.RiskRefusedError{Skill: sk.name, Risk: rep.Risk, Allowed: allow, Findings: rep.Findings}
	}
	return rep, nil
}

// filesOrNil lists a stored tree's files (hashes only), nil on error: the
// safety check uses them only to spot changed scripts.
func (tx *Tx) filesOrNil(tree Hash) []File {
	files, err := tx.Files(tree)
	if err != nil {
		return nil
	}
	return files
}

// mergeSkill merges base, ours (the published tree) and the upstream tree
// with the merge package and stores the result. resolved lists what the
// skill-aware rules resolved (skillAware), as "PATH:LINE RULE".
func (tx *Tx) mergeSkill(name string, headV Version, p *Plugin, up *upstream, sk *upstreamSkill, baseTree, ours Hash, skillAware bool) (tree Hash, conflicts, resolved []string, err error) {
	b, err := tx.loadMergeTree(baseTree)
	if err != nil {
		return ZeroHash, nil, nil, fmt.Errorf("merge base: %w", err)
	}
	o, err := tx.loadMergeTree(ours)
	if err != nil {
		return ZeroHash, nil, nil, fmt.Errorf("published version: %w", err)
	}
	files, err := tx.loadUpstreamFiles(sk)
	if err != nil {
		return ZeroHash, nil, nil, err
	}
	t := merge.TreeOf(files)
	theirsLabel := "upstream " + p.ID
	if up.layout.Version != "" {
		theirsLabel += "@" + up.layout.Version
	}
	res, err := merge.MergeTrees(b, o, t, merge.Options{Labels: merge.Labels{
		Ours: "published " + headV.Name(), Base: "base", Theirs: theirsLabel,
	}, SkillAware: skillAware})
	if err != nil {
		return ZeroHash, nil, nil, fmt.Errorf("merge %s: %w", name, err)
	}
	tree, err = tx.WriteTree(res.Tree.Files())
	if err != nil {
		return ZeroHash, nil, nil, fmt.Errorf("merge %s: %w", name, err)
	}
	for _, c := range res.Conflicts {
		conflicts = append(conflicts, fmt.Sprintf("%s (%s)", c.Path, c.Kind))
	}
	for _, r := range res.Resolved {
		resolved = append(resolved, r.String())
	}
	return tree, conflicts, resolved, nil
}

// writeCandidate queues a candidate merge commit with parents (published
// head, upstream snapshot) and points the skill's candidate ref at it;
// resolved become Merge-Resolved trailers.
func (tx *Tx) writeCandidate(p *Plugin, up *upstream, name string, head, u, base, tree Hash, mode MergeMode, conflicts []string, risk safety.RiskLevel, resolved ...string) (Hash, error) {
	sig := tx.signature()
	body := ""
	if len(conflicts) > 0 {
		body = "Conflicts to resolve:\n- " + strings.Join(conflicts, "\n- ")
	}
	conflictList := "none"
	if len(conflicts) > 0 {
		conflictList = strings.Join(conflicts, ", ")
	}
	c := &Commit{
		Tree: tree, Parents: []Hash{head, u}, Author: sig, Committer: sig,
		Message: buildMessage(fmt.Sprintf("candidate %s: %s update from plugin %s", name, mode, p.ID), body, append([]Trailer{
			{TrailerCandidate, name},
			{TrailerSource, p.Label()},
			{TrailerPlugin, p.ID},
			{TrailerPluginVersion, up.layout.Version},
			{TrailerMergeMode, string(mode)},
			{TrailerMergeBase, hashOrNone(base)},
			{TrailerConflicts, conflictList},
			{TrailerRisk, risk.String()},
			{TrailerActor, sig.Name + " <" + sig.Email + ">"},
		}, resolvedTrailers(resolved)...)),
	}
	h := tx.WriteCommit(c)
	tx.SetRef(CandidateRef(name), h)
	return h, nil
}

func resolvedTrailers(resolved []string) []Trailer {
	out := make([]Trailer, len(resolved))
	for i, r := range resolved {
		out[i] = Trailer{TrailerMergeResolved, r}
	}
	return out
}

// upstreamTrailers describe where a snapshot came from.
func upstreamTrailers(p *Plugin, up *upstream, sk *upstreamSkill) []Trailer {
	t := []Trailer{
		{TrailerSource, p.Label()},
		{TrailerPlugin, p.ID},
		{TrailerPluginVersion, up.layout.Version},
		{TrailerSourceURL, p.Source.String()},
		{TrailerUpstreamPath, sk.path},
	}
	if !up.fetched.Commit.IsZero() {
		t = append(t, Trailer{TrailerSourceCommit, up.fetched.Commit.String()})
	}
	return append(t, leftOutTrailers(sk)...)
}

func hashOrNone(h Hash) string {
	if h.IsZero() {
		return "none"
	}
	return h.String()
}

// errNoCandidateMerge means a candidate branch has no skillstore merge commit.
var errNoCandidateMerge = errors.New("no candidate merge commit on the branch")

// CandidateMerge finds the merge commit skillstore made for a candidate:
// the branch head itself, or an ancestor along first parents when a person
// committed a resolution on top of it with plain git. It fails for a
// branch that holds no skillstore candidate (pull ignores those).
func (r *Reader) CandidateMerge(h Hash) (*Commit, error) {
	for range 1000 {
		c, err := r.Commit(h)
		if err != nil {
			return nil, err
		}
		if c.Trailer(TrailerCandidate) != "" && len(c.Parents) == 2 {
			return c, nil
		}
		if len(c.Parents) == 0 {
			break
		}
		h = c.Parents[0]
	}
	return nil, errNoCandidateMerge
}

// commitCache keeps the commits one sync reads: a skill's head, snapshots
// and their ancestors are read several times while classifying it.
type commitCache struct {
	r *Reader
	m map[Hash]*Commit
}

func newCommitCache(r *Reader) *commitCache {
	return &commitCache{r: r, m: map[Hash]*Commit{}}
}

func (c *commitCache) get(h Hash) (*Commit, error) {
	if cm, ok := c.m[h]; ok {
		return cm, nil
	}
	cm, err := c.r.Commit(h)
	if err != nil {
		return nil, err
	}
	c.m[h] = cm
	return cm, nil
}
