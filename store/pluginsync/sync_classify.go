package pluginsync

import (
	"fmt"
	"path"
	"strconv"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/safety"
)

// syncSkill brings one owned skill up to date with its upstream tree. A
// tree refused for its content leaves the skill out (see leaveOut): the
// report says so, with no error.
func syncSkill(tx *store.Tx, p *plugins.Plugin, up *plugins.Upstream, us *plugins.UpstreamSkill, opts Options, cc *commitCache) SkillReport {
	sk := &skillIn{UpstreamSkill: us, leftOut: capLeftOut(us.Cut)}
	sr := SkillReport{Skill: sk.Name}
	if err := syncSkillTo(tx, p, up, sk, opts, cc, &sr); err != nil {
		if !leaveOut(err, &sr) {
			sr.Error = skillError(err)
		} else {
			opts.markHeld(&sr, store.QualifiedName(p.ID, sk.Name), sk.Tree)
		}
	}
	return sr
}

// syncSkillTo gathers what the classification of one skill depends on
// (writing the new upstream snapshot on the way), lets decide classify it,
// and makes the one write the decision calls for.
func syncSkillTo(tx *store.Tx, p *plugins.Plugin, up *plugins.Upstream, sk *skillIn, opts Options, cc *commitCache, sr *SkillReport) error {
	name := store.QualifiedName(p.ID, sk.Name)
	upRef := store.UpstreamRef(p.ID, sk.Name)
	prevU, hasPrevU := tx.Ref(upRef)
	head, hasHead := tx.Ref(store.SkillRef(name))
	var prevTree store.Hash
	var prevC *store.Commit
	if hasPrevU {
		c, err := cc.get(prevU)
		if err != nil {
			return err
		}
		prevTree, prevC = c.Tree, c
	}
	// A tree other than the last snapshot's may hold files the store never
	// keeps: they are left out before anything looks at it (intake.go).
	if !hasHead || !hasPrevU || prevTree != sk.Tree {
		if err := intake(tx, sk); err != nil {
			return err
		}
	}
	// The snapshot records the files it left out: a new list (or a new
	// tree) is a new snapshot, reported; the same one is quiet.
	newSnapshot := !hasPrevU || prevTree != sk.Tree || !sameLeftOut(prevC, sk.leftOut)
	allow, accepted := opts.allowed(p, sk)

	// The upstream ref is queued before the published and candidate refs,
	// so a sync killed between the two leaves a snapshot the next run
	// classifies exactly as this one did.
	tx.SetRef(upRef, prevU)
	if !hasHead {
		sr.Classification = decide(skillState{}).Class
		sr.LeftOut, sr.RiskAccepted = sk.leftOut, accepted
		return applyMirror(tx, p, up, name, sk, upRef, allow, sr)
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
		s, err := checkUpstream(tx, name, sk, tx.FilesOrNil(headC.Tree), sr, allow)
		if err != nil {
			return err
		}
		checked = &s
		if u, err = writeSnapshot(tx, p, up, sk, prevU, hasPrevU); err != nil {
			return err
		}
		sr.LeftOut = sk.leftOut
	}
	sr.Upstream = u.String()

	base, err := store.MergeBaseWith(cc.get, head, u)
	if err != nil {
		return err
	}
	var baseTree store.Hash
	if !base.IsZero() {
		bc, err := cc.get(base)
		if err != nil {
			return err
		}
		baseTree = bc.Tree
	}
	candHead, cand, err := readPending(tx, name, head, u)
	if err != nil {
		return err
	}
	state := skillState{
		Published: true, Base: baseTree, Ours: headC.Tree, Theirs: sk.Tree,
		Candidate: cand, Review: opts.Review || p.Review,
	}
	d := decide(state)
	if d.Class == ClassFastForward || d.Class == ClassThreeWay {
		// Only now is the risk of an unchanged upstream tree needed.
		if checked == nil {
			s, err := checkUpstream(tx, name, sk, tx.FilesOrNil(state.Ours), sr, allow)
			if err != nil {
				return err
			}
			checked = &s
		}
		state.Risk = checked.Risk
		state.RiskAccepted = accepted && checked.Risk > safety.DefaultAllowedRisk
		d = decide(state)
		sr.Risk, sr.RiskAccepted, sr.Findings = checked.Risk.String(), state.RiskAccepted, checked.Findings
	}
	sr.Classification = d.Class
	supersede := func() {
		if d.Supersede && cand != noCandidate {
			sr.Superseded = candidates.Replace(tx, name).String()
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
		return applyAlreadyApplied(tx, p, up, name, headC, u, base, sr)
	case stepPublish:
		return applyFastForward(tx, p, up, name, headC, u, base, sk.Tree, checked, sr)
	case stepReview:
		c := candidates.Write(tx, upstreamCandidate(p, up, name, head, u, base, sk.Tree, store.MergeModeFastForward, nil, checked.Risk, nil))
		sr.Candidate = c.String()
		return nil
	case stepMerge:
		headV, err := store.ParseVersion(name, headC)
		if err != nil {
			return err
		}
		merged, conflicts, resolved, err := mergeSkill(tx, name, headV, p, up, sk, baseTree, state.Ours, opts)
		if err != nil {
			return err // the older candidate stays: nothing replaces it
		}
		supersede()
		c := candidates.Write(tx, upstreamCandidate(p, up, name, head, u, base, merged, store.MergeModeThreeWay, conflicts, checked.Risk, resolved))
		sr.Candidate, sr.Conflicts, sr.MergeResolved = c.String(), conflicts, resolved
		return nil
	}
	return fmt.Errorf("sync %s: no step for class %s", name, d.Class)
}

// versionNumber is the number versionFromCommit reads from a version
// commit, with the same errors, without decoding the rest of the message:
// it is all an unchanged skill needs.
func versionNumber(name string, c *store.Commit) (int, error) {
	n := 0
	for _, t := range c.Trailers() {
		if t.Key != store.TrailerVersion {
			continue
		}
		v, err := strconv.Atoi(t.Value)
		if err != nil || v < 1 {
			return 0, fmt.Errorf("%s: commit %s has a bad %s trailer %q", name, store.ShortHash(c.Hash), store.TrailerVersion, t.Value)
		}
		n = v
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: commit %s has no %s trailer", name, store.ShortHash(c.Hash), store.TrailerVersion)
	}
	return n, nil
}

// checkUpstream runs the store's safety check and validation policy
// (discover.Check, lenient) on an upstream tree of the store's skill name
// (PLUGIN:SKILL). A tree the store never
// accepts, or one above the allowed risk, is an error; the policy's
// warnings go to sr.
func checkUpstream(tx *store.Tx, name string, sk *skillIn, previous []store.File, sr *SkillReport, allow safety.RiskLevel) (safety.Report, error) {
	files, err := plugins.LoadUpstreamFiles(tx, sk.UpstreamSkill)
	if err != nil {
		return safety.Report{}, err
	}
	rep, err := safety.CheckUpdate(sk.Name, files, previous, skillfs.DefaultLimits)
	if err != nil {
		return safety.Report{}, err
	}
	if sk.Parts {
		rep = tx.WithPluginFindings(rep, files, previous)
	}
	rep = tx.ScanExternal(tx.Context(), name, rep, files, previous)
	if f, ok := store.FileMap(files)[store.SkillFile]; ok {
		v := discover.Check(path.Join(sk.Path, store.SkillFile), sk.Name, f.Data, discover.Lenient)
		if !v.Accepted() {
			return safety.Report{}, &store.InvalidSkillError{Dir: sk.Path, Diagnostics: v.Diagnostics}
		}
		sr.Warnings = append(sr.Warnings, v.Warnings()...)
	}
	if rep.Risk > allow {
		return safety.Report{}, &safety.RiskRefusedError{Skill: sk.Name, Risk: rep.Risk, Allowed: allow, Findings: rep.Findings}
	}
	return rep, nil
}

// mergeSkill merges base, ours (the published tree) and the upstream tree
// with the merge package (with opts.ahead) and stores the result. resolved
// lists what the skill-aware rules resolved (opts.SkillAware), as
// "PATH:LINE RULE".
func mergeSkill(tx *store.Tx, name string, headV store.Version, p *plugins.Plugin, up *plugins.Upstream, sk *skillIn, baseTree, ours store.Hash, opts Options) (tree store.Hash, conflicts, resolved []string, err error) {
	b, err := candidates.LoadMergeTree(tx.Reader, baseTree)
	if err != nil {
		return store.ZeroHash, nil, nil, fmt.Errorf("merge base: %w", err)
	}
	o, err := candidates.LoadMergeTree(tx.Reader, ours)
	if err != nil {
		return store.ZeroHash, nil, nil, fmt.Errorf("published version: %w", err)
	}
	files, err := plugins.LoadUpstreamFiles(tx, sk.UpstreamSkill)
	if err != nil {
		return store.ZeroHash, nil, nil, err
	}
	t := merge.TreeOf(files)
	theirsLabel := "upstream " + p.ID
	if up.Layout.Version != "" {
		theirsLabel += "@" + up.Layout.Version
	}
	res, err := merge.MergeTrees(b, o, t, merge.Options{Labels: merge.Labels{
		Ours: "published " + headV.Name(), Base: "base", Theirs: theirsLabel,
	}, SkillAware: opts.SkillAware, Ahead: opts.ahead})
	if err != nil {
		return store.ZeroHash, nil, nil, fmt.Errorf("merge %s: %w", name, err)
	}
	tree, err = tx.WriteTree(res.Tree.Files())
	if err != nil {
		return store.ZeroHash, nil, nil, fmt.Errorf("merge %s: %w", name, err)
	}
	for _, c := range res.Conflicts {
		conflicts = append(conflicts, fmt.Sprintf("%s (%s)", c.Path, c.Kind))
	}
	for _, r := range res.Resolved {
		resolved = append(resolved, r.String())
	}
	return tree, conflicts, resolved, nil
}

// upstreamCandidate is the candidate of an upstream update of plugin p's
// skill name: the published head and the upstream snapshot u merged into
// tree (resolved: what the skill-aware rules resolved).
func upstreamCandidate(p *plugins.Plugin, up *plugins.Upstream, name string, head, u, base, tree store.Hash, mode store.MergeMode, conflicts []string, risk safety.RiskLevel, resolved []string) candidates.Spec {
	return candidates.Spec{
		Skill: name, Subject: fmt.Sprintf("candidate %s: %s update from plugin %s", name, mode, p.ID),
		Tree: tree, Published: head, Upstream: u,
		Source: p.Label(), Plugin: p.ID, PluginVersion: up.Layout.Version,
		Mode: mode, Base: base, Conflicts: conflicts, Risk: risk, Resolved: resolved,
	}
}

// upstreamTrailers describe where a snapshot came from and what it left
// out.
func upstreamTrailers(p *plugins.Plugin, up *plugins.Upstream, sk *skillIn) []store.Trailer {
	return append(plugins.SnapshotTrailers(p, up, sk.UpstreamSkill), leftOutTrailers(sk)...)
}

// commitCache keeps the commits one sync reads: a skill's head, snapshots
// and their ancestors are read several times while classifying it.
type commitCache struct {
	r *store.Reader
	m map[store.Hash]*store.Commit
}

func newCommitCache(r *store.Reader) *commitCache {
	return &commitCache{r: r, m: map[store.Hash]*store.Commit{}}
}

func (c *commitCache) get(h store.Hash) (*store.Commit, error) {
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
