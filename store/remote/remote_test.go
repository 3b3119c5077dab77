package remote

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
)

// newActorStore creates an empty store whose commits name actor.
func newActorStore(t testing.TB, actor string) *store.Store {
	t.Helper()
	s, err := store.Init(context.Background(), filepath.Join(t.TempDir(), actor), store.Options{
		Actor: store.Signature{Name: actor, Email: actor + "@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// publish records files as the next version of skill (the whole tree).
func publish(t testing.TB, s *store.Store, skill string, files map[string]string) store.Version {
	t.Helper()
	var v store.Version
	err := s.Update(context.Background(), func(tx *store.Tx) error {
		var fs []store.File
		for p, content := range files {
			fs = append(fs, store.File{Path: p, Mode: skillfs.Regular, Data: []byte(content)})
		}
		tree, err := tx.WriteTree(fs)
		if err != nil {
			return err
		}
		v, err = tx.CommitVersion(skill, tree, store.VersionInfo{Reason: "edit by " + actorName(s)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// publishMD publishes a SKILL.md-only version with the given body lines.
func publishMD(t testing.TB, s *store.Store, skill string, lines ...string) store.Version {
	t.Helper()
	_, short := store.SplitName(skill)
	return publish(t, s, skill, map[string]string{"SKILL.md": storetest.SkillMD(short, lines...)})
}

func mustPush(t testing.TB, s *store.Store, remote string) *PushReport {
	t.Helper()
	rep, err := Push(context.Background(), s, PushOptions{Remote: remote})
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	return rep
}

func mustPull(t testing.TB, s *store.Store, remote string) *PullReport {
	t.Helper()
	rep, err := Pull(context.Background(), s, PullOptions{Remote: remote})
	if err != nil {
		t.Fatalf("pull: %v", err)
	}
	return rep
}

func mustAddRemote(t testing.TB, s *store.Store, name, url string) {
	t.Helper()
	if _, err := Add(context.Background(), s, name, url); err != nil {
		t.Fatal(err)
	}
}

// pullActions maps skill → action of a pull report.
func pullActions(rep *PullReport) map[string]PullAction {
	out := map[string]PullAction{}
	for _, s := range rep.Skills {
		out[s.Skill] = s.Action
	}
	return out
}

// refValues lists the refs of a store (or any bare repository) as
// "name hash" lines, via plain git.
func refValues(t testing.TB, dir, pattern string) string {
	t.Helper()
	return remoteGit(t, dir, "for-each-ref", "--format=%(refname) %(objectname)", pattern)
}

func fileOf(t testing.TB, s *store.Store, spec, path string) string {
	t.Helper()
	data, err := s.Cat(context.Background(), spec, path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestRemoteAddListRemove(t *testing.T) {
	ctx := context.Background()
	s := newActorStore(t, "alice")
	mustAddRemote(t, s, "origin", "https://alice:s3cret@example.com/team/skills.git")
	mustAddRemote(t, s, "backup", "relative/dir")

	rems, err := List(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(rems) != 2 || rems[0].Name != "backup" || rems[1].Name != "origin" {
		t.Fatalf("remotes = %+v", rems)
	}
	if !filepath.IsAbs(rems[0].URL) {
		t.Errorf("a local path remote is stored absolute, got %q", rems[0].URL)
	}
	if got := rems[1].Redacted(); got != "https://alice:***@example.com/team/skills.git" {
		t.Errorf("redacted = %q", got)
	}
	// Plain git sees the remote, with the fetch refspecs pull uses.
	out := remoteGit(t, s.Dir(), "config", "--get-all", "remote.origin.fetch")
	if !strings.Contains(out, "+refs/heads/skills/*:refs/remotes/origin/heads/skills/*") {
		t.Errorf("git config fetch specs:\n%s", out)
	}
	// The state never holds a remote.
	err = s.View(ctx, func(r *store.Reader) error {
		keys, err := r.RecordKeys("remotes")
		if len(keys) > 0 {
			t.Errorf("remote records in the state: %v", keys)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	if _, err := Add(ctx, s, "origin", "file:///x"); !errors.Is(err, ErrRemoteExists) {
		t.Errorf("duplicate add: %v", err)
	}
	var bad *store.InvalidNameError
	if _, err := Add(ctx, s, "no/slash", "file:///x"); !errors.As(err, &bad) {
		t.Errorf("bad name: %v", err)
	}
	if _, err := Add(ctx, s, "ftp", "ftp://example.com/x"); err == nil || !strings.Contains(err.Error(), "unsupported scheme") {
		t.Errorf("bad scheme: %v", err)
	}
	if err := Remove(ctx, s, "nope"); !errors.Is(err, ErrUnknownRemote) {
		t.Errorf("remove unknown: %v", err)
	}
	if err := Remove(ctx, s, "origin"); err != nil {
		t.Fatal(err)
	}
	if rems, _ := List(ctx, s); len(rems) != 1 {
		t.Errorf("after rm: %+v", rems)
	}
	// With one remote left, it is the default; with none, push says so.
	if err := Remove(ctx, s, "backup"); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(ctx, s, PushOptions{}); !errors.Is(err, ErrNoRemote) {
		t.Errorf("push without remote: %v", err)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p@host/x.git":        "https://u:***@host/x.git",
		"https://ghp_token@github.com/": "https://***@github.com/",
		"ssh://git@host/x.git":          "ssh://git@host/x.git",
		"git@github.com:o/r.git":        "git@github.com:o/r.git",
		"/srv/skills.git":               "/srv/skills.git",
		// A URL nothing uses shows what is wrong with it.
		"http://me%0ahost=github.com@127.0.0.1/x.git": "http://me%0ahost=github.com@127.0.0.1/x.git",
		"http://me:s3cret@host/x\n.git":               `http://me:***@host/x\n.git`,
		"/srv/ski\x1bls.git":                          `/srv/ski\x1bls.git`,
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
	if got := redactIn("fetch https://u:p4ss@h/x failed: p4ss", "https://u:p4ss@h/x"); strings.Contains(got, "p4ss") {
		t.Errorf("redactIn left the password: %q", got)
	}
}

// TestPushCloneAndPullOverGitDaemon walks two stores through a central
// bare repository served by git daemon: push, clone, fast-forward pulls
// both ways, local-ahead, and plain git reading the central store.
func TestPushCloneAndPullOverGitDaemon(t *testing.T) {
	ctx := context.Background()
	d := startGitDaemon(t)
	url := d.newRepo(t, "central.git")

	alice := newActorStore(t, "alice")
	publishMD(t, alice, "deploy", "v1")
	publishMD(t, alice, "deploy", "v2")
	publishMD(t, alice, "review", "v1")
	mustAddRemote(t, alice, "origin", url)
	rep := mustPush(t, alice, "")
	if len(rep.Updates) != 2 {
		t.Fatalf("first push updates = %+v", rep.Updates)
	}
	remoteGit(t, d.path("central.git"), "fsck", "--strict", "--no-dangling")
	if got := refValues(t, d.path("central.git"), "refs/heads/skills/"); got != refValues(t, alice.Dir(), "refs/heads/skills/") {
		t.Fatalf("central refs:\n%s", got)
	}
	// Pushing again sends nothing.
	if rep := mustPush(t, alice, "origin"); len(rep.Updates) != 0 {
		t.Errorf("second push updates = %+v", rep.Updates)
	}

	bobDir := filepath.Join(t.TempDir(), "bob")
	bob, crep, err := Clone(ctx, url, bobDir, store.Options{Actor: store.Signature{Name: "bob", Email: "bob@example.com"}}, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pullActions(crep); got["deploy"] != PullNew || got["review"] != PullNew {
		t.Errorf("clone actions = %v", got)
	}
	storetest.CheckStore(t, bobDir)
	if got := storetest.HeadOf(t, bob, "deploy"); got.Number != 2 {
		t.Errorf("bob's deploy = v%d", got.Number)
	}

	// Alice publishes again: bob's pull fast-forwards.
	publishMD(t, alice, "deploy", "v3")
	mustPush(t, alice, "")
	rep2 := mustPull(t, bob, "")
	if got := rep2.Skills; len(got) != 1 || got[0].Action != PullFastForward || got[0].OldVersion != 2 || got[0].NewVersion != 3 {
		t.Errorf("ff pull = %+v", got)
	}
	// Bob publishes: his pull reports him ahead, his push fast-forwards
	// the central store, alice's pull takes it.
	publishMD(t, bob, "review", "v2 by bob")
	if got := pullActions(mustPull(t, bob, "")); got["review"] != PullLocalAhead {
		t.Errorf("local-ahead pull = %v", got)
	}
	if rep := mustPush(t, bob, ""); len(rep.Updates) != 1 || rep.Updates[0].Action != PushFastForward {
		t.Errorf("bob's push = %+v", rep.Updates)
	}
	if got := pullActions(mustPull(t, alice, "")); got["review"] != PullFastForward {
		t.Errorf("alice's pull = %v", got)
	}
	if got := fileOf(t, alice, "review", "SKILL.md"); !strings.Contains(got, "v2 by bob") {
		t.Errorf("alice's review:\n%s", got)
	}
	storetest.CheckStore(t, alice.Dir())
	storetest.CheckStore(t, bobDir)
	// Tracking refs record what the remote holds.
	if got := refValues(t, alice.Dir(), "refs/remotes/origin/heads/skills/"); !strings.Contains(got, "refs/remotes/origin/heads/skills/review") {
		t.Errorf("tracking refs:\n%s", got)
	}
}

// TestPushRefusesNonFastForward: a push that would overwrite a published
// skill is refused whole, names the skill and says to pull.
func TestPushRefusesNonFastForward(t *testing.T) {
	ctx := context.Background()
	central := filepath.Join(t.TempDir(), "central.git")
	remoteGit(t, "", "init", "--quiet", "--bare", central)
	url := "file://" + central

	alice := newActorStore(t, "alice")
	publishMD(t, alice, "deploy", "v1")
	publishMD(t, alice, "other", "v1")
	mustAddRemote(t, alice, "origin", url)
	mustPush(t, alice, "")
	bob, _, err := Clone(ctx, url, filepath.Join(t.TempDir(), "bob"), store.Options{Actor: store.Signature{Name: "bob", Email: "b@x"}}, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	publishMD(t, alice, "deploy", "alice's v2")
	mustPush(t, alice, "")
	publishMD(t, bob, "deploy", "bob's v2")
	publishMD(t, bob, "other", "bob's other v2")
	before := refValues(t, central, "refs/")
	_, err = Push(ctx, bob, PushOptions{})
	var refused *PushRefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("push = %v, want refused", err)
	}
	if len(refused.Refs) != 1 || refused.Refs[0].Ref != "refs/heads/skills/deploy" || !strings.Contains(err.Error(), "skillstore pull") {
		t.Errorf("refusal: %v", err)
	}
	if after := refValues(t, central, "refs/"); after != before {
		t.Errorf("a refused push changed the remote:\n%s\nwas\n%s", after, before)
	}
}

// TestPushRefusesLocalRecords checks that a state still holding records of
// this machine (target folders, as older releases kept them) is never
// sent: the push is refused before anything reaches the remote.
func TestPushRefusesLocalRecords(t *testing.T) {
	central := filepath.Join(t.TempDir(), "central.git")
	remoteGit(t, filepath.Dir(central), "init", "-q", "--bare", central)
	s := newActorStore(t, "alice")
	publishMD(t, s, "deploy", "a")
	err := s.Update(context.Background(), func(tx *store.Tx) error {
		tx.NoteState("target add claude")
		return tx.PutRecord("targets/claude", map[string]string{"dir": "/home/alice/.claude/skills"})
	})
	if err != nil {
		t.Fatal(err)
	}
	mustAddRemote(t, s, "origin", "file://"+central)
	_, err = Push(context.Background(), s, PushOptions{})
	var local *LocalRecordsError
	if !errors.As(err, &local) || len(local.Records) != 1 || local.Records[0] != "targets/claude" {
		t.Fatalf("push = %v, want a LocalRecordsError naming targets/claude", err)
	}
	if refs := refValues(t, central, "refs/"); refs != "" {
		t.Fatalf("the remote received refs: %s", refs)
	}
}
