package remote

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/safety"
)

// PullOptions tune a pull.
type PullOptions struct {
	// Remote names the remote; "" is the only one, or DefaultRemote.
	Remote string
	// AllowRisk is the highest risk level accepted in a fetched version;
	// zero means DefaultAllowedRisk (only critical findings refuse).
	AllowRisk safety.RiskLevel
	// SkillAware merges Markdown of diverged skills with the skill-aware
	// rules (merge.Options.SkillAware); the remote-merge candidate lists
	// every resolution, and is always reviewed, never published by pull.
	SkillAware bool
	// MaxNewSkills caps the skills one pull may create in this store;
	// zero means DefaultMaxNewSkills, a negative number no cap.
	MaxNewSkills int

	// ahead holds the merges of diverged skills, computed before the
	// write lock (candidates.WriteAhead).
	ahead *merge.Ahead
}

// PullAction is what pull did with one skill.
type PullAction string

// What pull did with one published skill.
const (
	PullNew         PullAction = "new"                  // the remote has a skill this store lacked
	PullFastForward PullAction = "fast-forward"         // the remote was ahead
	PullLocalAhead  PullAction = "local-ahead"          // this store is ahead: push publishes it
	PullJoined      PullAction = "joined"               // both published the same files: histories joined in a version
	PullMerged      PullAction = "merge-candidate"      // both published: a clean merge waits for review
	PullConflicted  PullAction = "conflicted-candidate" // both published: a merge with conflicts waits
	PullPending     PullAction = "candidate-pending"    // the merge of these two versions already waits
	// PullHeld: the remote was ahead, but the safety check here rates
	// its newest versions high: the versions before them were taken
	// (NewVersion, if any), those wait in a remote-merge candidate for
	// review, as sync holds a risky upstream update (see reviewCut).
	PullHeld PullAction = "held-for-review"
)

// RefAction is what pull did with one ref of the remote.
type RefAction string

// What pull did with an upstream snapshot, candidate or superseded ref.
const (
	RefNew         RefAction = "new"
	RefFastForward RefAction = "fast-forward"
	RefKeptLocal   RefAction = "kept-local" // both sides moved it: this store's value stays
	RefIgnored     RefAction = "ignored"    // a candidate this store already accepted, rejected or superseded
	RefSuperseded  RefAction = "superseded" // the remote replaced this store's candidate
)

// PullReport is what a pull did.
type PullReport struct {
	Remote string      `json:"remote"`
	URL    string      `json:"url"` // redacted
	Skills []PullSkill `json:"skills"`
	Refs   []PullRef   `json:"refs"`
	State  StateMerge  `json:"state"`
	// Ignored lists remote refs outside skillstore's namespaces.
	Ignored []string `json:"ignored_refs,omitempty"`
	// CandidatesWaiting counts every candidate waiting for review after
	// the pull.
	CandidatesWaiting int `json:"candidates_waiting"`
	// Warnings are the validation policy's warnings (discover.Check,
	// lenient) about the newest fetched version of each skill.
	Warnings []discover.Diagnostic `json:"warnings,omitempty"`
	// Refused are the skills left out: what the remote serves of them
	// fails the checks here. Everything else went in.
	Refused []RefusedSkill `json:"refused,omitempty"`
}

// PullSkill is one published skill's part of a pull; skills already equal
// on both sides are not listed.
type PullSkill struct {
	Skill         string     `json:"skill"`
	Action        PullAction `json:"action"`
	OldVersion    int        `json:"old_version,omitempty"`
	NewVersion    int        `json:"new_version,omitempty"`
	RemoteVersion int        `json:"remote_version,omitempty"`
	Candidate     string     `json:"candidate,omitempty"`
	Superseded    string     `json:"superseded,omitempty"`
	Conflicts     []string   `json:"conflicts,omitempty"`
	// MergeResolved lists what the skill-aware rules resolved.
	MergeResolved []string `json:"merge_resolved,omitempty"`
	// Held says what waits for review (Action PullHeld).
	Held *HeldVersions `json:"held,omitempty"`
}

// HeldVersions are remote versions pull did not publish because the
// safety check here rates them high; PullSkill.Candidate holds the
// remote's newest.
type HeldVersions struct {
	From int    `json:"from"` // the first version held
	Risk string `json:"risk"` // the highest risk level among them
	// Pending is set when the candidate was there already.
	Pending bool `json:"pending,omitempty"`
}

// PullRef is what pull did with a ref other than a published skill.
type PullRef struct {
	Ref    string    `json:"ref"`
	Action RefAction `json:"action"`
	Reason string    `json:"reason,omitempty"`
}

// Changed reports whether the pull changed anything besides tracking refs.
func (r *PullReport) Changed() bool {
	for _, s := range r.Skills {
		if s.Action != PullLocalAhead {
			return true
		}
	}
	for _, ref := range r.Refs {
		if ref.Action != RefIgnored {
			return true
		}
	}
	return r.State.Action != "" && r.State.Action != StateUpToDate && r.State.Action != StateLocalAhead
}

// Pull fetches the remote's published skills, upstream snapshots,
// candidates and state, checks everything fetched with the store's safety
// checks, and integrates it per skill with the merge-base logic of sync:
// the remote ahead fast-forwards, this store ahead stays, and two diverged
// published histories become a candidate holding their three-way merge
// (refs/heads/candidates/<skill>, accepted with [store.Store.AcceptRemoteMerge]):
// nothing published is ever overwritten. A version the safety check here
// rates high waits for review the same way instead of being published
// (see reviewCut). The state is merged record by record (see
// [StateMerge]).
//
// The network phase runs with no store lock held, within the store's
// fetch deadlines (store.Options.FetchTimeout), as sync's fetches do: the
// pack is received into a temporary file, and only then is the write
// lock taken to store, check and integrate it. A refused remote writes
// nothing.
func Pull(ctx context.Context, s *store.Store, opts PullOptions) (*PullReport, error) {
	snap, err := snapshot(ctx, s, opts.Remote)
	if err != nil {
		return nil, err
	}
	fetched, err := fetchUnlocked(ctx, s, snap, opts)
	if err != nil {
		return nil, err
	}
	defer fetched.close()
	var rep *PullReport
	// The merges of diverged skills are computed with no lock held: the
	// write is planned, then made (candidates.WriteAhead).
	err = candidates.WriteAhead(ctx, s, func(ahead *merge.Ahead) error {
		opts.ahead = ahead
		return s.Update(ctx, func(tx *store.Tx) error {
			rem, err := find(s, snap.rem.Name)
			if err != nil {
				return err
			}
			if rem.URL != snap.rem.URL {
				return fmt.Errorf("remote %s: its URL changed while the pull fetched: pull again", rem.Name)
			}
			rep, err = remoteTx{tx}.pull(ctx, rem, fetched, opts)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func (tx remoteTx) pull(ctx context.Context, rem Remote, fetched *pullFetch, opts PullOptions) (rep *PullReport, err error) {
	// A refused or failed pull takes back the pack it stored: nothing of
	// a malicious remote stays in the store, not even unreachable objects
	// (which `git fsck --strict` would still inspect).
	before := packNames(tx.Store().Dir())
	defer func() {
		if err != nil {
			discardPacks(tx.Store().Dir(), before)
		}
	}()
	defer tx.KeepPacksOpen()()
	rr, err := tx.storeFetched(rem, fetched)
	if err != nil {
		return nil, err
	}

	allow := opts.AllowRisk
	if allow == safety.RiskNone {
		allow = safety.DefaultAllowedRisk
	}
	check := newHistoryCheck(tx.Tx, allow)
	defer check.close()
	names := make([]string, 0, len(rr.refs))
	for name := range rr.refs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		check.forRef(name)
		check.history(name, rr.refs[name])
	}
	if h, ok := rr.refs[store.StateRef]; ok {
		check.stateTree(h)
	}
	for _, ref := range rr.names(store.RefSkill) {
		local, _ := tx.Ref(ref)
		check.skillVersions(store.SkillOfRef(ref), rr.refs[ref], local)
	}
	for _, ref := range rr.names(store.RefCandidate) {
		skill := store.SkillOfRef(ref)
		published, _ := rr.refs[store.SkillRef(skill)]
		if published.IsZero() {
			published, _ = tx.Ref(store.SkillRef(skill))
		}
		check.candidateRisk(skill, rr.refs[ref], published)
	}
	refused, err := check.outcome(rem.Name)
	if err != nil {
		return nil, err
	}
	rr.leaveOut(refused)
	if err := tx.checkRemoteLayout(rr); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// What the safety check found here, not the remote's Risk trailers,
	// is what show, list and review report for what came in.
	if err := tx.RecordLocalRisk(check.risks); err != nil {
		return nil, err
	}

	rep = &PullReport{Remote: rem.Name, URL: rem.Redacted(), Skills: []PullSkill{}, Refs: []PullRef{}, Ignored: rr.ignored, Warnings: check.warnings, Refused: refused}
	// Upstream snapshots first: a pull killed after them leaves bases
	// the next run (and sync) understand.
	for _, ref := range rr.names(store.RefUpstream) {
		if r, ok := tx.pullLine(ref, rr.refs[ref]); ok {
			rep.Refs = append(rep.Refs, r)
		}
	}
	for _, ref := range rr.names(store.RefSkill) {
		ps, err := tx.pullSkill(store.SkillOfRef(ref), rr.refs[ref], rem, opts, check.risks)
		if err != nil {
			return nil, err
		}
		if ps.Action != "" {
			rep.Skills = append(rep.Skills, ps)
		}
	}
	for _, ref := range rr.names(store.RefSuperseded) {
		if _, ok := tx.Ref(ref); !ok && rr.decides(tx, ref) {
			tx.SetRef(ref, rr.refs[ref])
			rep.Refs = append(rep.Refs, PullRef{Ref: ref, Action: RefNew})
		}
	}
	for _, ref := range rr.names(store.RefCandidate) {
		if r, ok := tx.pullCandidate(ref, rr); ok {
			rep.Refs = append(rep.Refs, r)
		}
	}
	if h, ok := rr.refs[store.StateRef]; ok {
		if rep.State, err = tx.mergeState(h, rem); err != nil {
			return nil, err
		}
	}
	if err := opts.ahead.Err(); err != nil {
		return nil, err // planned: the merges are computed, then the pull runs again
	}
	tx.updateTracking(rem.Name, rr)
	rep.CandidatesWaiting = len(candidates.Names(tx.Tx.Reader))
	return rep, nil
}

// storeFetched writes the pack the network phase received into the
// object database and checks that every object the remote's refs name
// is there now.
func (tx remoteTx) storeFetched(rem Remote, fetched *pullFetch) (*remoteRefs, error) {
	if fetched.pack != nil {
		// From its start: a pull that planned its merges stores it again.
		if _, err := fetched.pack.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("fetch from %s: %w", rem.Name, err)
		}
		if err := tx.StorePack(fetched.pack); err != nil {
			return nil, fmt.Errorf("fetch from %s: %w", rem.Name, err)
		}
	}
	for _, h := range fetched.wants {
		if !tx.HasObject(h) {
			return nil, fmt.Errorf("fetch from %s: the remote did not send %s", rem.Name, h)
		}
	}
	return fetched.rr, nil
}

// pullLine integrates a ref whose values form a line (an upstream
// snapshot chain): new and fast-forward are taken, anything else keeps
// this store's value.
func (tx remoteTx) pullLine(ref string, remote store.Hash) (PullRef, bool) {
	local, ok := tx.Ref(ref)
	switch {
	case !ok:
		tx.SetRef(ref, remote)
		return PullRef{Ref: ref, Action: RefNew}, true
	case local == remote, tx.IsAncestor(remote, local):
		return PullRef{}, false
	case tx.IsAncestor(local, remote):
		tx.SetRef(ref, remote)
		return PullRef{Ref: ref, Action: RefFastForward}, true
	}
	return PullRef{Ref: ref, Action: RefKeptLocal, Reason: "both sides took different snapshots; this store's stays (its published versions name the base they took in)"}, true
}

// pullSkill integrates one published skill. risks are the safety
// reports computed here for the fetched versions.
func (tx remoteTx) pullSkill(name string, remote store.Hash, rem Remote, opts PullOptions, risks map[store.Hash]safety.Report) (PullSkill, error) {
	ps := PullSkill{Skill: name}
	ref := store.SkillRef(name)
	rv, err := tx.VersionAt(name, remote)
	if err != nil {
		return ps, err
	}
	ps.RemoteVersion = rv.Number
	local, ok := tx.Ref(ref)
	if ok && local == remote {
		return PullSkill{}, nil
	}
	if ok && tx.IsAncestor(remote, local) {
		lv, err := tx.VersionAt(name, local)
		ps.Action, ps.OldVersion = PullLocalAhead, lv.Number
		return ps, err
	}
	if !ok || tx.IsAncestor(local, remote) {
		return tx.pullAhead(ps, local, rv, rem, risks, opts.ahead)
	}
	lv, err := tx.VersionAt(name, local)
	if err != nil {
		return ps, err
	}
	ps.OldVersion = lv.Number
	return tx.pullDiverged(ps, lv, rv, rem, opts)
}

// pullAhead takes the versions of a skill the remote has ahead of this
// store (local is zero for a skill new here): all of them, or, when the
// safety check rates one high, those before it, the rest waiting for
// review in a candidate (see reviewCut).
func (tx remoteTx) pullAhead(ps PullSkill, local store.Hash, rv store.Version, rem Remote, risks map[store.Hash]safety.Report, ahead *merge.Ahead) (PullSkill, error) {
	name, ref := rv.Skill, store.SkillRef(rv.Skill)
	if !local.IsZero() {
		lv, err := tx.VersionAt(name, local)
		if err != nil {
			return ps, err
		}
		ps.OldVersion = lv.Number
	}
	cut, held, err := tx.reviewCut(name, local, rv.Commit, risks)
	if err != nil {
		return ps, err
	}
	if cut != local {
		tx.SetRef(ref, cut)
		cv, err := tx.VersionAt(name, cut)
		if err != nil {
			return ps, err
		}
		ps.Action, ps.NewVersion = PullFastForward, cv.Number
		if local.IsZero() {
			ps.Action = PullNew
		}
	}
	if held.Level == safety.RiskNone {
		return ps, nil
	}
	lv, err := tx.VersionAt(name, cut)
	if err != nil {
		return ps, err
	}
	dm, err := candidates.MergeDiverged(tx.Tx, lv, rv, rem.Name, merge.Options{Ahead: ahead})
	if err != nil {
		return ps, err
	}
	if dm.Joined.Number > 0 { // the held versions come back to files published here
		ps.Action, ps.NewVersion = PullJoined, dm.Joined.Number
		return ps, nil
	}
	ps.Action, ps.Candidate = PullHeld, dm.Candidate.String()
	ps.Held = &HeldVersions{From: held.Version, Risk: held.Level.String(), Pending: dm.Pending}
	return ps, nil
}

// pullDiverged joins a skill published differently here and there.
func (tx remoteTx) pullDiverged(ps PullSkill, lv, rv store.Version, rem Remote, opts PullOptions) (PullSkill, error) {
	dm, err := candidates.MergeDiverged(tx.Tx, lv, rv, rem.Name, merge.Options{SkillAware: opts.SkillAware, Ahead: opts.ahead})
	if err != nil {
		return ps, err
	}
	switch {
	case dm.Joined.Number > 0:
		ps.Action, ps.NewVersion = PullJoined, dm.Joined.Number
	case dm.Pending:
		ps.Action, ps.Candidate = PullPending, dm.Candidate.String()
	default:
		ps.Candidate, ps.Conflicts, ps.MergeResolved = dm.Candidate.String(), dm.Conflicts, dm.Resolved
		if !dm.Superseded.IsZero() {
			ps.Superseded = dm.Superseded.String()
		}
		ps.Action = PullMerged
		if len(dm.Conflicts) > 0 {
			ps.Action = PullConflicted
		}
	}
	return ps, nil
}

// pullCandidate integrates a remote candidate branch. A candidate this
// store already accepted (its head is in the published history), rejected
// or superseded is not revived; one a reviewer extended (commits on top,
// made with plain git) fast-forwards; one changed on both sides keeps
// this store's, unless the remote recorded this store's as superseded.
func (tx remoteTx) pullCandidate(ref string, rr *remoteRefs) (PullRef, bool) {
	skill := store.SkillOfRef(ref)
	remote := rr.refs[ref]
	local, hasLocal := tx.Ref(ref)
	if hasLocal && local == remote {
		return PullRef{}, false
	}
	if tx.candidateDone(skill, remote) {
		if hasLocal && tx.IsAncestor(remote, local) {
			return PullRef{}, false
		}
		return PullRef{Ref: ref, Action: RefIgnored, Reason: "already accepted, rejected or superseded in this store"}, true
	}
	if _, err := candidates.MergeCommit(tx.Tx.Reader, remote); err != nil {
		// A branch pushed by hand under candidates/: reviewers can still
		// see it on the server, but it is no candidate skillstore can read.
		return PullRef{Ref: ref, Action: RefIgnored, Reason: "not a skillstore candidate (" + err.Error() + ")"}, true
	}
	switch {
	case !hasLocal:
		tx.SetRef(ref, remote)
		return PullRef{Ref: ref, Action: RefNew}, true
	case tx.IsAncestor(local, remote):
		tx.SetRef(ref, remote)
		return PullRef{Ref: ref, Action: RefFastForward}, true
	case tx.IsAncestor(remote, local):
		return PullRef{}, false
	}
	if _, ok := rr.refs[store.SupersededRef(skill, local)]; ok {
		tx.SetRef(store.SupersededRef(skill, local), local)
		tx.SetRef(ref, remote)
		return PullRef{Ref: ref, Action: RefSuperseded, Reason: "the remote superseded this store's candidate " + short(local)}, true
	}
	return PullRef{Ref: ref, Action: RefKeptLocal, Reason: fmt.Sprintf("changed on both sides; the remote's is at %s", store.TrackingRef(rr.remote, ref))}, true
}

// decides reports whether the remote's superseded ref decides about a
// candidate: the one this store holds for that skill, or the one the
// remote holds. Only those are taken; the others tell this store nothing
// (see store/superseded.go), and taking them would make every store keep
// every candidate any store ever replaced.
func (rr *remoteRefs) decides(tx remoteTx, ref string) bool {
	name, h, ok := store.SupersededNameOfRef(ref)
	if !ok {
		return false
	}
	if local, ok := tx.Ref(store.CandidateRef(name)); ok && local == h {
		return true
	}
	remote, ok := rr.refs[store.CandidateRef(name)]
	return ok && remote == h
}

// candidateDone reports whether candidate head h was accepted (it is in
// the published history) or rejected or superseded here.
func (r remoteTx) candidateDone(skill string, h store.Hash) bool {
	if _, ok := r.Ref(store.SupersededRef(skill, h)); ok {
		return true
	}
	head, ok := r.Ref(store.SkillRef(skill))
	return ok && r.IsAncestor(h, head)
}

// updateTracking points refs/remotes/<remote>/... at what the remote has
// now and drops those of refs it no longer has.
func (tx remoteTx) updateTracking(remote string, rr *remoteRefs) {
	want := map[string]store.Hash{}
	for name, h := range rr.refs {
		if kind, _ := store.ClassifyRef(name); isTracked(kind) {
			want[store.TrackingRef(remote, name)] = h
		}
	}
	for _, name := range tx.RefNames(store.RemoteRefPrefix + remote + "/") {
		if _, ok := want[name]; !ok {
			tx.DeleteRef(name)
		}
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if cur, ok := tx.Ref(name); !ok || cur != want[name] {
			tx.SetRef(name, want[name])
		}
	}
}
