package remote

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/skillstore/skillstore/store"
)

// BenchmarkRemotePushPull pushes a store of 1,000 skills × 10 versions to
// an empty repository over a loopback git daemon and pulls it into an empty
// store, side by side with the C git client doing the same transfers on the
// same repository (`git push --mirror` to an empty repository, `git fetch`
// of every ref into an empty one). Reported: push and pull ns/op for each,
// and skillstore's ratio to git (the goal is ≤ 1.5); then the same
// repositories after ten skills got a new version (inc-*).
//
//	go test ./store -run '^$' -bench RemotePushPull -benchtime 1x
func BenchmarkRemotePushPull(b *testing.B) {
	requireGitDaemon(b)
	d := startGitDaemon(b)
	src := newActorStore(b, "bench")
	bulkStore(b, src, 1000, 10)
	if _, err := src.GC(context.Background(), store.DefaultGCGrace); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var push, gitPush, pull, gitPull time.Duration
	var incPush, incGitPush, incPull, incGitPull time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// C git first, so the store has no tracking refs yet for --mirror.
		ref := d.newRepo(b, fmt.Sprintf("git-%d.git", i))
		start := time.Now()
		benchGit(b, src.Dir(), "push", "--quiet", "--mirror", ref)
		gitPush += time.Since(start)

		url := d.newRepo(b, fmt.Sprintf("store-%d.git", i))
		name := fmt.Sprintf("central%d", i)
		mustAddRemote(b, src, name, url)
		start = time.Now()
		if _, err := Push(ctx, src, PushOptions{Remote: name}); err != nil {
			b.Fatal(err)
		}
		push += time.Since(start)

		dst := b.TempDir() + "/fetch.git"
		benchGit(b, "", "init", "--quiet", "--bare", dst)
		start = time.Now()
		benchGit(b, dst, "fetch", "--quiet", url, "+refs/*:refs/*")
		gitPull += time.Since(start)

		s := newActorStore(b, fmt.Sprintf("puller-%d", i))
		mustAddRemote(b, s, "origin", url)
		start = time.Now()
		rep, err := Pull(ctx, s, PullOptions{})
		if err != nil {
			b.Fatal(err)
		}
		pull += time.Since(start)
		if len(rep.Skills) != 1000 {
			b.Fatalf("pulled %d skills", len(rep.Skills))
		}

		// The daily case: ten skills got a new version since.
		for k := range 10 {
			publishMD(b, src, fmt.Sprintf("skill-%04d", k*97), fmt.Sprintf("run %d edit %d", i, k))
		}
		start = time.Now()
		benchGit(b, src.Dir(), "push", "--quiet", ref, "+refs/heads/*:refs/heads/*")
		incGitPush += time.Since(start)
		start = time.Now()
		if _, err := Push(ctx, src, PushOptions{Remote: name}); err != nil {
			b.Fatal(err)
		}
		incPush += time.Since(start)
		start = time.Now()
		benchGit(b, dst, "fetch", "--quiet", url, "+refs/*:refs/*")
		incGitPull += time.Since(start)
		start = time.Now()
		if _, err := Pull(ctx, s, PullOptions{}); err != nil {
			b.Fatal(err)
		}
		incPull += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(push.Nanoseconds())/n, "push-ns/op")
	b.ReportMetric(float64(gitPush.Nanoseconds())/n, "git-push-ns/op")
	b.ReportMetric(float64(push)/float64(gitPush), "push-ratio")
	b.ReportMetric(float64(pull.Nanoseconds())/n, "pull-ns/op")
	b.ReportMetric(float64(gitPull.Nanoseconds())/n, "git-fetch-ns/op")
	b.ReportMetric(float64(pull)/float64(gitPull), "pull-ratio")
	b.ReportMetric(float64(incPush.Nanoseconds())/n, "inc-push-ns/op")
	b.ReportMetric(float64(incGitPush.Nanoseconds())/n, "inc-git-push-ns/op")
	b.ReportMetric(float64(incPull.Nanoseconds())/n, "inc-pull-ns/op")
	b.ReportMetric(float64(incGitPull.Nanoseconds())/n, "inc-git-fetch-ns/op")
}

func benchGit(b *testing.B, dir string, args ...string) {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
