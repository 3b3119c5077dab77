package remote

import (
	"context"
	"os"
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

// TestCandidateReviewedWithPlainGit is the team flow: the cron machine
// syncs a plugin into a conflicted candidate and pushes it; a reviewer
// clones the central repository with plain git, resolves the candidate
// branch, commits and pushes it back; the cron machine pulls (the
// candidate fast-forwards), accepts and pushes, which deletes the
// candidate branch on the server under a lease.
func TestCandidateReviewedWithPlainGit(t *testing.T) {
	ctx := context.Background()
	d := startGitDaemon(t)
	url := d.newRepo(t, "central.git")

	cron := newActorStore(t, "cron")
	up := filepath.Join(t.TempDir(), "plugin")
	md := filepath.Join(up, "skills", "deploy", "SKILL.md")
	storetest.WriteFile(t, md, storetest.SkillMD("deploy", "line 1", "line 2", "line 3"))
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pluginsync.Add(ctx, cron, src, pluginsync.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	storetest.LocalEdit(t, cron, "plugin:deploy", storetest.SkillMD("deploy", "line 1", "local line 2", "line 3"))
	storetest.WriteFile(t, md, storetest.SkillMD("deploy", "line 1", "upstream line 2", "line 3"))
	if r := synctest.SyncOnce(t, cron, pluginsync.Options{})["deploy"]; r.Classification != pluginsync.ClassThreeWay || len(r.Conflicts) == 0 {
		t.Fatalf("sync = %+v", r)
	}
	mustAddRemote(t, cron, "origin", url)
	if rep := mustPush(t, cron, ""); !hasUpdate(rep, store.CandidateRef("plugin:deploy"), PushCreate) {
		t.Fatalf("push = %+v", rep.Updates)
	}

	// The reviewer works with plain git only.
	work := filepath.Join(t.TempDir(), "review")
	remoteGit(t, "", "clone", "--quiet", url, work)
	remoteGit(t, work, "checkout", "--quiet", "-b", "review", "origin/candidates/plugins/plugin/deploy")
	data, err := os.ReadFile(filepath.Join(work, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "<<<<<<<") {
		t.Fatalf("the candidate has no conflict markers:\n%s", data)
	}
	storetest.WriteFile(t, filepath.Join(work, "SKILL.md"), storetest.SkillMD("deploy", "line 1", "local and upstream line 2", "line 3"))
	remoteGit(t, work, "commit", "--quiet", "-am", "resolve deploy")
	remoteGit(t, work, "push", "--quiet", "origin", "review:candidates/plugins/plugin/deploy")

	rep := mustPull(t, cron, "")
	if len(rep.Refs) != 1 || rep.Refs[0].Action != RefFastForward {
		t.Fatalf("pull refs = %+v", rep.Refs)
	}
	v, err := candidates.Accept(ctx, cron, "plugin:deploy", "reviewed")
	if err != nil {
		t.Fatal(err)
	}
	if got := fileOf(t, cron, "plugin:deploy", "SKILL.md"); !strings.Contains(got, "local and upstream line 2") {
		t.Errorf("accepted v%d:\n%s", v.Number, got)
	}
	prep := mustPush(t, cron, "")
	if !hasUpdate(prep, store.CandidateRef("plugin:deploy"), PushDelete) || !hasUpdate(prep, store.SkillRef("plugin:deploy"), PushFastForward) {
		t.Errorf("push after accept = %+v", prep.Updates)
	}
	if out := refValues(t, d.path("central.git"), store.CandidateRefPrefix); out != "" {
		t.Errorf("candidate left on the server:\n%s", out)
	}
	// The reviewer's branch is now merged: its head is in the published history.
	remoteGit(t, work, "fetch", "--quiet", "origin")
	remoteGit(t, work, "merge-base", "--is-ancestor", "review", "origin/plugins/plugin/deploy")
	storetest.CheckStore(t, cron.Dir())
	remoteGit(t, d.path("central.git"), "fsck", "--strict", "--no-dangling")
}

// TestPushLeaseProtectsReviewerCommits: a candidate a reviewer changed on
// the server is never replaced by a push, even when this store has a newer
// candidate for the same skill.
func TestPushLeaseProtectsReviewerCommits(t *testing.T) {
	ctx := context.Background()
	alice, bob, central := twoStores(t, "deploy")
	publishMD(t, alice, "deploy", "alice")
	mustPush(t, alice, "")
	publishMD(t, bob, "deploy", "bob")
	mustPull(t, bob, "") // a merge candidate in bob's store
	// Someone else puts a candidate for deploy on the server.
	work := filepath.Join(t.TempDir(), "w")
	remoteGit(t, "", "clone", "--quiet", "file://"+central, work)
	remoteGit(t, work, "checkout", "--quiet", "-b", "c", "origin/skills/deploy")
	storetest.WriteFile(t, filepath.Join(work, "notes.md"), "hand-made\n")
	remoteGit(t, work, "add", ".")
	remoteGit(t, work, "commit", "--quiet", "-m", "hand-made candidate")
	remoteGit(t, work, "push", "--quiet", "origin", "c:candidates/skills/deploy")
	before := refValues(t, central, "refs/")
	_, err := Push(ctx, bob, PushOptions{})
	if err == nil || !strings.Contains(err.Error(), "refs/heads/candidates/skills/deploy") {
		t.Fatalf("push = %v", err)
	}
	if after := refValues(t, central, "refs/"); after != before {
		t.Errorf("the remote changed:\n%s", after)
	}
}
