package remote

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/internal/synctest"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// supersededRefs counts the superseded refs of a store (or any bare
// repository), as plain git lists them.
func supersededRefs(t *testing.T, dir string) int {
	t.Helper()
	return len(strings.Fields(refValues(t, dir, store.SupersededRefPrefix))) / 2
}

// TestConflictWaitingLeavesNoSupersededTrail: bob's edits of three skills
// conflict with alice's and wait, unresolved, while alice publishes and
// pushes a new version of each, and bob and carol pull, fifteen rounds.
// Each pull replaced bob's three candidates, which never left his store
// (push is refused while they wait): they leave no superseded ref, so none
// is pushed when he finally resolves and pushes. (023a0ec kept one per
// skill per pull: 42 here, all pushed.)
func TestConflictWaitingLeavesNoSupersededTrail(t *testing.T) {
	ctx := context.Background()
	skills := []string{"alpha", "beta", "gamma"}
	alice, bob, central := twoStores(t, skills...)
	carol, _, err := Clone(ctx, "file://"+central, filepath.Join(t.TempDir(), "carol"),
		store.Options{Actor: store.Signature{Name: "carol", Email: "carol@example.com"}}, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range skills {
		publishMD(t, bob, sk, "line one", "BOB", "line three")
	}
	for round := 1; round <= 15; round++ {
		for _, sk := range skills {
			publishMD(t, alice, sk, "line one", "ALICE", "line three", "round "+string(rune('a'+round)))
		}
		mustPush(t, alice, "")
		for sk, action := range pullActions(mustPull(t, bob, "")) {
			if action != PullConflicted {
				t.Fatalf("round %d: bob's pull of %s = %s, want conflicted", round, sk, action)
			}
		}
		mustPull(t, carol, "")
	}
	for who, dir := range map[string]string{"bob": bob.Dir(), "carol": carol.Dir(), "central": central} {
		if n := supersededRefs(t, dir); n != 0 {
			t.Errorf("%s holds %d superseded refs after 15 rounds, want 0", who, n)
		}
	}

	// bob resolves and accepts each merge, and pushes: nothing superseded
	// travels, and alice and carol take his versions.
	for _, sk := range skills {
		dir := filepath.Join(t.TempDir(), sk)
		storetest.WriteFile(t, filepath.Join(dir, "SKILL.md"), storetest.SkillMD(sk, "line one", "ALICE and BOB", "line three"))
		if _, err := candidates.Resolve(ctx, bob, sk, dir, "both"); err != nil {
			t.Fatal(err)
		}
		if _, err := candidates.AcceptRemoteMerge(ctx, bob, sk, ""); err != nil {
			t.Fatal(err)
		}
	}
	mustPush(t, bob, "")
	mustPull(t, alice, "")
	mustPull(t, carol, "")
	for who, s := range map[string]*store.Store{"alice": alice, "carol": carol} {
		if got := fileOf(t, s, "beta", "SKILL.md"); !strings.Contains(got, "ALICE and BOB") {
			t.Errorf("%s's beta:\n%s", who, got)
		}
		storetest.CheckStore(t, s.Dir())
	}
	if n := supersededRefs(t, central); n != 0 {
		t.Errorf("central holds %d superseded refs after bob's push, want 0", n)
	}
	remoteGit(t, central, "fsck", "--strict")
}

// TestPushedCandidatesTombstonesArePruned: a plugin skill's conflicted
// candidate that alice pushed (carol pulled it) is replaced by a newer
// upstream, round after round. Each replaced candidate is kept under its
// superseded ref, pushed, and tells carol to take the newer one; once
// the remote holds the newer one, gc (grace 0) drops the tombstone in both
// stores, and a pull does not bring it back. Candidates stay exactly the
// pushed one on every side.
func TestPushedCandidatesTombstonesArePruned(t *testing.T) {
	ctx := context.Background()
	up := filepath.Join(t.TempDir(), "plugin")
	md := filepath.Join(up, "skills", "deploy", "SKILL.md")
	storetest.WriteFile(t, md, storetest.SkillMD("deploy", "line one", "line two", "line three"))
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	central := filepath.Join(t.TempDir(), "central.git")
	remoteGit(t, "", "init", "--quiet", "--bare", central)
	alice := newActorStore(t, "alice")
	if _, err := pluginsync.Add(ctx, alice, src, pluginsync.AddOptions{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	mustAddRemote(t, alice, "origin", "file://"+central)
	storetest.LocalEdit(t, alice, "acme:deploy", storetest.SkillMD("deploy", "line one", "line two by alice", "line three"))
	mustPush(t, alice, "")
	carol, _, err := Clone(ctx, "file://"+central, filepath.Join(t.TempDir(), "carol"),
		store.Options{Actor: store.Signature{Name: "carol", Email: "carol@example.com"}}, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	candidateOf := func(s *store.Store) string {
		t.Helper()
		return strings.TrimSpace(remoteGit(t, s.Dir(), "for-each-ref", "--format=%(objectname)", store.CandidateRef("acme:deploy")))
	}
	var prev string
	const rounds = 6
	for round := 1; round <= rounds; round++ {
		storetest.WriteFile(t, md, storetest.SkillMD("deploy", "line one", "line two upstream "+string(rune('a'+round)), "line three"))
		r := synctest.SyncOnce(t, alice, pluginsync.Options{})["deploy"]
		if r.Classification != pluginsync.ClassThreeWay || r.Candidate == "" || r.Superseded != prev {
			t.Fatalf("round %d: alice's sync = %+v, want a candidate superseding %q", round, r, prev)
		}
		mustPush(t, alice, "")
		mustPull(t, carol, "")
		if got := candidateOf(carol); got != r.Candidate {
			t.Fatalf("round %d: carol's candidate %s, want alice's %s", round, got, r.Candidate)
		}
		if prev != "" {
			h, _ := store.ParseHash(prev)
			if n := strings.TrimSpace(refValues(t, central, store.SupersededRef("acme:deploy", h))); n == "" {
				t.Errorf("round %d: the replaced candidate's tombstone did not reach the remote", round)
			}
		}
		for who, s := range map[string]*store.Store{"alice": alice, "carol": carol} {
			if n := supersededRefs(t, s.Dir()); n > 1 {
				t.Errorf("round %d: %s holds %d superseded refs before gc, want at most the last", round, who, n)
			}
			res, err := s.GC(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := min(round-1, 1); res.Superseded != want {
				t.Errorf("round %d: %s's gc pruned %d superseded refs, want %d", round, who, res.Superseded, want)
			}
			if n := supersededRefs(t, s.Dir()); n != 0 {
				t.Errorf("round %d: %s holds %d superseded refs after gc", round, who, n)
			}
		}
		prev = r.Candidate
	}
	mustPull(t, alice, "")
	mustPull(t, carol, "")
	for who, s := range map[string]*store.Store{"alice": alice, "carol": carol} {
		if n := supersededRefs(t, s.Dir()); n != 0 {
			t.Errorf("%s took %d superseded refs back from the remote, want 0", who, n)
		}
		if got := candidateOf(s); got != prev {
			t.Errorf("%s's candidate %s, want %s", who, got, prev)
		}
		storetest.CheckStore(t, s.Dir())
	}
	if n := supersededRefs(t, central); n != rounds-1 {
		t.Errorf("central holds %d superseded refs, want %d (one per candidate replaced there)", n, rounds-1)
	}
	remoteGit(t, central, "fsck", "--strict")
}
