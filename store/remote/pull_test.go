package remote

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/internal/synctest"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// twoStores makes alice's store with the given skills, pushes it to a new
// bare repository (file://) and clones it as bob's.
func twoStores(t *testing.T, skills ...string) (alice, bob *store.Store, central string) {
	t.Helper()
	central = filepath.Join(t.TempDir(), "central.git")
	remoteGit(t, "", "init", "--quiet", "--bare", central)
	alice = newActorStore(t, "alice")
	for _, s := range skills {
		publishMD(t, alice, s, "line one", "line two", "line three")
	}
	mustAddRemote(t, alice, "origin", "file://"+central)
	mustPush(t, alice, "")
	bob, _, err := Clone(context.Background(), "file://"+central, filepath.Join(t.TempDir(), "bob"),
		store.Options{Actor: store.Signature{Name: "bob", Email: "bob@example.com"}}, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return alice, bob, central
}

// TestPullDivergedCleanMerge: two people publish different edits of the
// same skill; the second one's pull makes a candidate holding both, whose
// acceptance takes max(both numbers)+1 and fast-forwards the remote.
func TestPullDivergedCleanMerge(t *testing.T) {
	ctx := context.Background()
	alice, bob, central := twoStores(t, "deploy")

	publishMD(t, alice, "deploy", "line one by alice", "line two", "line three")
	publishMD(t, alice, "deploy", "line one by alice", "line two", "line three", "alice's v3")
	mustPush(t, alice, "")
	publish(t, bob, "deploy", map[string]string{
		"SKILL.md":         storetest.SkillMD("deploy", "line one", "line two", "line three"),
		"scripts/check.md": "bob's new file\n",
	})

	rep := mustPull(t, bob, "")
	if len(rep.Skills) != 1 {
		t.Fatalf("pull = %+v", rep.Skills)
	}
	ps := rep.Skills[0]
	if ps.Action != PullMerged || ps.OldVersion != 2 || ps.RemoteVersion != 3 || len(ps.Conflicts) != 0 {
		t.Fatalf("diverged pull = %+v", ps)
	}
	// Nothing published changed: the merge waits for review.
	if v := storetest.HeadOf(t, bob, "deploy"); v.Number != 2 {
		t.Fatalf("bob's published deploy moved to v%d", v.Number)
	}
	// A push now is refused and says why.
	if _, err := Push(ctx, bob, PushOptions{}); err == nil || !strings.Contains(err.Error(), "accept it, then push") {
		t.Errorf("push with a waiting merge: %v", err)
	}
	// Pulling again finds the same merge waiting.
	if got := pullActions(mustPull(t, bob, "")); got["deploy"] != PullPending {
		t.Errorf("second pull = %v", got)
	}

	// candidates accept takes the same path for a pull's merge as for
	// sync's: AcceptCandidate routes it to AcceptRemoteMerge.
	v, err := candidates.Accept(ctx, bob, "deploy", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(v.Source, "plugin:") {
		t.Errorf("accepted merge of a managed skill has source %q", v.Source)
	}
	if v.Number != 4 || v.Parents[0] != storetest.HeadOf(t, alice, "deploy").Commit || v.MergeMode != store.MergeModeRemote {
		t.Errorf("accepted merge = v%d parents %v mode %s", v.Number, v.Parents, v.MergeMode)
	}
	if got := fileOf(t, bob, "deploy", "SKILL.md"); !strings.Contains(got, "line one by alice") || !strings.Contains(got, "alice's v3") {
		t.Errorf("merged SKILL.md:\n%s", got)
	}
	if got := fileOf(t, bob, "deploy", "scripts/check.md"); got != "bob's new file\n" {
		t.Errorf("merged scripts/check.md = %q", got)
	}
	if rep := mustPush(t, bob, ""); !hasUpdate(rep, "refs/heads/skills/deploy", PushFastForward) {
		t.Errorf("push after accept = %+v", rep.Updates)
	}
	if got := pullActions(mustPull(t, alice, "")); got["deploy"] != PullFastForward {
		t.Errorf("alice's pull = %v", got)
	}
	a, b := storetest.HeadOf(t, alice, "deploy"), storetest.HeadOf(t, bob, "deploy")
	if a.Commit != b.Commit || a.Number != 4 {
		t.Errorf("heads differ: alice v%d %s, bob v%d %s", a.Number, a.Commit, b.Number, b.Commit)
	}
	for _, dir := range []string{alice.Dir(), bob.Dir(), central} {
		remoteGit(t, dir, "fsck", "--strict", "--no-dangling")
	}
	storetest.CheckStore(t, alice.Dir())
	storetest.CheckStore(t, bob.Dir())
}

func hasUpdate(rep *PushReport, ref string, action PushAction) bool {
	for _, u := range rep.Updates {
		if u.Ref == ref && u.Action == action {
			return true
		}
	}
	return false
}

// TestPullDivergedConflict: the same line edited on both sides gives a
// candidate with conflict markers; accepting is refused until resolved.
func TestPullDivergedConflict(t *testing.T) {
	ctx := context.Background()
	alice, bob, _ := twoStores(t, "deploy")
	publishMD(t, alice, "deploy", "line one", "ALICE", "line three")
	mustPush(t, alice, "")
	publishMD(t, bob, "deploy", "line one", "BOB", "line three")
	publishMD(t, bob, "deploy", "line one", "BOB", "line three", "bob again")

	rep := mustPull(t, bob, "")
	ps := rep.Skills[0]
	if ps.Action != PullConflicted || len(ps.Conflicts) == 0 || rep.CandidatesWaiting != 1 {
		t.Fatalf("pull = %+v", rep)
	}
	var markers *candidates.ConflictMarkersError
	if _, err := candidates.AcceptRemoteMerge(ctx, bob, "deploy", ""); !errors.As(err, &markers) {
		t.Fatalf("accept with markers: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "deploy")
	storetest.WriteFile(t, filepath.Join(dir, "SKILL.md"), storetest.SkillMD("deploy", "line one", "ALICE and BOB", "line three", "bob again"))
	if _, err := candidates.Resolve(ctx, bob, "deploy", dir, "both"); err != nil {
		t.Fatal(err)
	}
	v, err := candidates.AcceptRemoteMerge(ctx, bob, "deploy", "")
	if err != nil {
		t.Fatal(err)
	}
	// bob had v3, alice v2: bob's line stays the first parent.
	if v.Number != 4 {
		t.Errorf("merged version v%d, want v4", v.Number)
	}
	mustPush(t, bob, "")
	mustPull(t, alice, "")
	if got := fileOf(t, alice, "deploy", "SKILL.md"); !strings.Contains(got, "ALICE and BOB") {
		t.Errorf("alice's deploy:\n%s", got)
	}
	storetest.CheckStore(t, alice.Dir())
	storetest.CheckStore(t, bob.Dir())
}

// TestPullJoinsIdenticalEdits: both sides published the same files; the
// histories are joined at once, with no candidate.
func TestPullJoinsIdenticalEdits(t *testing.T) {
	alice, bob, _ := twoStores(t, "deploy")
	publishMD(t, alice, "deploy", "same fix")
	mustPush(t, alice, "")
	publishMD(t, bob, "deploy", "same fix")
	rep := mustPull(t, bob, "")
	if ps := rep.Skills[0]; ps.Action != PullJoined || ps.NewVersion != 3 {
		t.Fatalf("pull = %+v", rep.Skills)
	}
	if rep.CandidatesWaiting != 0 {
		t.Errorf("candidates waiting = %d", rep.CandidatesWaiting)
	}
	mustPush(t, bob, "")
	storetest.CheckStore(t, bob.Dir())
}

// TestPullMergesStateRecordByRecord: records changed on one side are
// taken, conflicting ones keep this store's and are reported, and targets
// (folders on one machine) never come from a remote.
func TestPullMergesStateRecordByRecord(t *testing.T) {
	ctx := context.Background()
	alice, bob, central := twoStores(t, "deploy", "review")
	put := func(s *store.Store, recs map[string]any) {
		t.Helper()
		err := s.Update(ctx, func(tx *store.Tx) error {
			for p, v := range recs {
				if err := tx.PutRecord(p, v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	put(alice, map[string]any{"skills/deploy": store.SkillRecord{Status: store.StatusDisabled, Reason: "broken"}, "shared/x": map[string]string{"v": "base"}})
	mustPush(t, alice, "")
	mustPull(t, bob, "")
	put(alice, map[string]any{
		"skills/review":  store.SkillRecord{Status: store.StatusDisabled, Reason: "alice"},
		"targets/claude": map[string]string{"name": "claude", "dir": "/home/alice/.claude/skills"},
		"shared/x":       map[string]string{"v": "alice"},
	})
	// Alice's store keeps a target in its state as older releases did; her
	// skillstore would refuse to push it, so an older release's push is
	// played by git itself.
	remoteGit(t, alice.Dir(), "push", "--quiet", "file://"+central, "+"+store.StateRef+":"+store.StateRef)
	put(bob, map[string]any{
		"targets/claude": map[string]string{"name": "claude", "dir": "/home/bob/.claude/skills"},
		"shared/x":       map[string]string{"v": "bob"},
	})
	rep := mustPull(t, bob, "")
	if rep.State.Action != StateMerged {
		t.Fatalf("state = %+v", rep.State)
	}
	if len(rep.State.Conflicts) != 1 || rep.State.Conflicts[0].Record != "shared/x" {
		t.Errorf("conflicts = %+v", rep.State.Conflicts)
	}
	err := bob.View(ctx, func(r *store.Reader) error {
		rec, err := r.SkillRecord("review")
		if rec.Status != store.StatusDisabled {
			t.Errorf("review's record not taken: %+v", rec)
		}
		var target map[string]string
		if _, err := r.Record("targets/claude", &target); err != nil {
			return err
		}
		if target["dir"] != "/home/bob/.claude/skills" {
			t.Errorf("bob's target was replaced: %v", target)
		}
		var x map[string]string
		r.Record("shared/x", &x)
		if x["v"] != "bob" {
			t.Errorf("conflicting record = %v, want bob's kept", x)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Bob's merged state descends from alice's: his push fast-forwards,
	// once his own target record has left the state (package target moves
	// it to this machine's records before a push).
	err = bob.Update(ctx, func(tx *store.Tx) error {
		tx.DeleteRecord("targets/claude")
		tx.NoteState("move target records out")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep := mustPush(t, bob, ""); !hasUpdate(rep, store.StateRef, PushFastForward) {
		t.Errorf("push = %+v", rep.Updates)
	}
}

// TestConcurrentPublishesAndPushes: two stores publish and push at the
// same time through git daemon; whoever loses is refused, pulls, accepts
// the merge and pushes; both end with the same verified history.
func TestConcurrentPublishesAndPushes(t *testing.T) {
	ctx := context.Background()
	d := startGitDaemon(t)
	url := d.newRepo(t, "central.git")
	alice := newActorStore(t, "alice")
	for _, s := range []string{"deploy", "review", "shared"} {
		publishMD(t, alice, s, "line one", "line two", "line three")
	}
	mustAddRemote(t, alice, "origin", url)
	mustPush(t, alice, "")
	bob, _, err := Clone(ctx, url, filepath.Join(t.TempDir(), "bob"), store.Options{Actor: store.Signature{Name: "bob", Email: "b@x"}}, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, p := range []struct {
		s     *store.Store
		skill string
		line  string
	}{{alice, "deploy", "alice"}, {bob, "review", "bob"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 5 {
				publishMD(t, p.s, p.skill, "line one", p.line, "edit", strings.Repeat("x", n))
			}
			if p.line == "alice" {
				publishMD(t, p.s, "shared", "line one by alice", "line two", "line three")
			} else {
				publishMD(t, p.s, "shared", "line one", "line two", "line three by bob")
			}
			_, errs[i] = Push(ctx, p.s, PushOptions{})
		}()
	}
	wg.Wait()
	if errs[0] != nil && errs[1] != nil {
		t.Fatalf("both pushes failed: %v; %v", errs[0], errs[1])
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		var refused *PushRefusedError
		if !errors.As(err, &refused) && !errors.Is(err, ErrRemoteRejected) {
			t.Fatalf("push %d: %v", i, err)
		}
		loser := []*store.Store{alice, bob}[i]
		rep := mustPull(t, loser, "")
		if got := pullActions(rep); got["shared"] != PullMerged {
			t.Fatalf("loser's pull = %v", got)
		}
		if _, err := candidates.AcceptRemoteMerge(ctx, loser, "shared", ""); err != nil {
			t.Fatal(err)
		}
		mustPush(t, loser, "")
	}
	mustPull(t, alice, "")
	mustPull(t, bob, "")
	for _, skill := range []string{"deploy", "review", "shared"} {
		if a, b := storetest.HeadOf(t, alice, skill), storetest.HeadOf(t, bob, skill); a.Commit != b.Commit {
			t.Errorf("%s: alice v%d, bob v%d", skill, a.Number, b.Number)
		}
	}
	if got := fileOf(t, alice, "shared", "SKILL.md"); storetest.HeadOf(t, alice, "shared").Number != 3 || !strings.Contains(got, "line one by alice") || !strings.Contains(got, "line three by bob") {
		t.Errorf("shared = v%d:\n%s", storetest.HeadOf(t, alice, "shared").Number, got)
	}
	remoteGit(t, d.path("central.git"), "fsck", "--strict", "--no-dangling")
	storetest.CheckStore(t, alice.Dir())
	storetest.CheckStore(t, bob.Dir())
}

// TestTwoMachinesAddTheSamePlugin: both stores mirror the same plugin on
// their own, so their skills and upstream snapshots share no commit. The
// pull joins the identical skill histories, keeps its own snapshot line,
// and the push leaves the remote's snapshot ref alone.
func TestTwoMachinesAddTheSamePlugin(t *testing.T) {
	ctx := context.Background()
	up := filepath.Join(t.TempDir(), "plugin")
	storetest.WriteFile(t, filepath.Join(up, "skills", "deploy", "SKILL.md"), storetest.SkillMD("deploy", "upstream text"))
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	central := filepath.Join(t.TempDir(), "central.git")
	remoteGit(t, "", "init", "--quiet", "--bare", central)
	var stores []*store.Store
	for _, name := range []string{"alice", "bob"} {
		s := newActorStore(t, name)
		if _, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{ID: "acme"}); err != nil {
			t.Fatal(err)
		}
		mustAddRemote(t, s, "origin", "file://"+central)
		stores = append(stores, s)
	}
	alice, bob := stores[0], stores[1]
	mustPush(t, alice, "")
	rep := mustPull(t, bob, "")
	if got := pullActions(rep); got["acme:deploy"] != PullJoined {
		t.Fatalf("pull = %+v", rep.Skills)
	}
	if len(rep.Refs) != 1 || rep.Refs[0].Action != RefKeptLocal || rep.Refs[0].Ref != store.UpstreamRef("acme", "deploy") {
		t.Errorf("refs = %+v", rep.Refs)
	}
	prep := mustPush(t, bob, "")
	if !hasUpdate(prep, store.SkillRef("acme:deploy"), PushFastForward) || !hasUpdate(prep, store.UpstreamRef("acme", "deploy"), PushSkip) {
		t.Errorf("push = %+v", prep.Updates)
	}
	// Alice takes bob's join; her upstream line is the remote's.
	if got := pullActions(mustPull(t, alice, "")); got["acme:deploy"] != PullFastForward {
		t.Errorf("alice's pull = %v", got)
	}
	// Sync still works on both after the join.
	storetest.WriteFile(t, filepath.Join(up, "skills", "deploy", "SKILL.md"), storetest.SkillMD("deploy", "upstream text v2"))
	for _, s := range stores {
		if r := synctest.SyncOnce(t, s, pluginsync.Options{})["deploy"]; r.Error != "" || r.Classification != pluginsync.ClassFastForward {
			t.Errorf("%s: sync after join = %+v", actorName(s), r)
		}
		storetest.CheckStore(t, s.Dir())
	}
}

// TestSyncHoldsRemoteMergeCandidate: a merge of two published histories that
// pull made on a plugin skill waits for review; sync neither supersedes it
// (upstream unchanged) nor replaces it with a plugin candidate (upstream
// changed): the skill is reported pending until the merge is accepted, and
// then the upstream update is classified as usual.
func TestSyncHoldsRemoteMergeCandidate(t *testing.T) {
	ctx := context.Background()
	up := filepath.Join(t.TempDir(), "plugin")
	storetest.WriteFile(t, filepath.Join(up, "skills", "deploy", "SKILL.md"), storetest.SkillMD("deploy", "line one", "line two", "line three"))
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	central := filepath.Join(t.TempDir(), "central.git")
	remoteGit(t, "", "init", "--quiet", "--bare", central)
	alice, bob := newActorStore(t, "alice"), newActorStore(t, "bob")
	for _, s := range []*store.Store{alice, bob} {
		if _, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{ID: "acme"}); err != nil {
			t.Fatal(err)
		}
		mustAddRemote(t, s, "origin", "file://"+central)
	}
	mustPush(t, alice, "")
	mustPull(t, bob, "")
	publishMD(t, alice, "acme:deploy", "line one by alice", "line two", "line three")
	mustPush(t, alice, "")
	publishMD(t, bob, "acme:deploy", "line one", "line two", "line three by bob")
	if got := pullActions(mustPull(t, bob, "")); got["acme:deploy"] != PullMerged {
		t.Fatalf("bob's pull = %v", got)
	}
	candidateMode := func() store.MergeMode {
		t.Helper()
		var mode store.MergeMode
		err := bob.View(ctx, func(r *store.Reader) error {
			c, err := candidates.Get(r, "acme:deploy")
			mode = c.Mode
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return mode
	}

	if r := synctest.SyncOnce(t, bob, pluginsync.Options{})["deploy"]; r.Classification != pluginsync.ClassPending || r.Superseded != "" {
		t.Errorf("sync with upstream unchanged = %+v", r)
	}
	if got := candidateMode(); got != store.MergeModeRemote {
		t.Fatalf("after sync the candidate is %q, want the remote merge", got)
	}
	storetest.WriteFile(t, filepath.Join(up, "skills", "deploy", "SKILL.md"), storetest.SkillMD("deploy", "line one", "line two", "line three by bob", "line four upstream"))
	if r := synctest.SyncOnce(t, bob, pluginsync.Options{})["deploy"]; r.Classification != pluginsync.ClassPending || r.Superseded != "" {
		t.Errorf("sync with upstream changed = %+v", r)
	}
	if got := candidateMode(); got != store.MergeModeRemote {
		t.Fatalf("after an upstream change the candidate is %q, want the remote merge", got)
	}

	if _, err := candidates.Accept(ctx, bob, "acme:deploy", "reviewed"); err != nil {
		t.Fatal(err)
	}
	r := synctest.SyncOnce(t, bob, pluginsync.Options{})["deploy"]
	if r.Classification != pluginsync.ClassThreeWay || r.Candidate == "" {
		t.Fatalf("sync after the merge was accepted = %+v", r)
	}
	if got := candidateMode(); got != store.MergeModeThreeWay {
		t.Errorf("the upstream update became a %q candidate", got)
	}
	storetest.CheckStore(t, bob.Dir())
}

// TestRejectRemoteMergeKeepsOurs: rejecting the merge that pull proposes
// keeps this store's files but joins both histories, numbered past both
// sides, so the push fast-forwards and the other machine takes it.
func TestRejectRemoteMergeKeepsOurs(t *testing.T) {
	ctx := context.Background()
	alice, bob, _ := twoStores(t, "deploy")
	for _, extra := range []string{"a", "b", "c", "d"} { // alice reaches v5
		publishMD(t, alice, "deploy", "line one by alice", "line two", "line three", extra)
	}
	mustPush(t, alice, "")
	publishMD(t, bob, "deploy", "line one", "line two", "line three by bob") // bob's v2
	if got := pullActions(mustPull(t, bob, "")); got["deploy"] != PullConflicted {
		t.Fatalf("bob's pull = %v", got)
	}
	v, err := candidates.Reject(ctx, bob, "deploy", "keep bob's wording")
	if err != nil {
		t.Fatal(err)
	}
	if v.Number != 6 {
		t.Errorf("rejected merge recorded as v%d, want v6 (one past alice's v5)", v.Number)
	}
	if got := fileOf(t, bob, "deploy", "SKILL.md"); !strings.Contains(got, "line three by bob") || strings.Contains(got, "alice") {
		t.Errorf("after the rejection bob's SKILL.md is:\n%s", got)
	}
	if err := bob.View(ctx, func(r *store.Reader) error {
		_, err := candidates.Get(r, "deploy")
		return err
	}); err == nil {
		t.Error("the candidate is still there after the rejection")
	}
	storetest.CheckStore(t, bob.Dir())
	if rep := mustPush(t, bob, ""); !hasUpdate(rep, store.SkillRef("deploy"), PushFastForward) {
		t.Errorf("push after the rejection = %+v", rep.Updates)
	}
	if got := pullActions(mustPull(t, alice, "")); got["deploy"] != PullFastForward {
		t.Errorf("alice's pull = %v", got)
	}
	if a := storetest.HeadOf(t, alice, "deploy"); a.Commit != v.Commit {
		t.Errorf("alice is at v%d, bob at v%d", a.Number, v.Number)
	}
	storetest.CheckStore(t, alice.Dir())
}
