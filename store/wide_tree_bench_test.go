package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wideTreeRepo commits, in a new git repository, a plugin with one skill
// and n empty files in the folder big/ outside it, built with git's
// plumbing (mktree, read-tree: no work tree of n files is written).
func wideTreeRepo(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "wide")
	writeFile(b, filepath.Join(dir, "skills", "lint", "SKILL.md"), skillMD("lint", "Run the linter."))
	gitRun(b, dir, "init", "-q", "-b", "main")
	gitRun(b, dir, "add", "-A")
	empty := strings.TrimSpace(gitRun(b, dir, "hash-object", "-w", "/dev/null"))
	var list strings.Builder
	for i := range n {
		fmt.Fprintf(&list, "100644 blob %s\tf%06d\n", empty, i)
	}
	cmd := exec.Command("git", "mktree")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(list.String())
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	tree, err := cmd.Output()
	if err != nil {
		b.Fatalf("git mktree: %v", err)
	}
	gitRun(b, dir, "read-tree", "--prefix=big/", strings.TrimSpace(string(tree)))
	gitRun(b, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "wide")
	return dir
}

// BenchmarkWideTreePlugin adds and syncs a git plugin whose one skill sits
// beside a folder of 100,000 empty files (issue #32: reading the tree cost
// a decode of that folder per file, ~40 s per add and per sync). The
// reference is `git clone --bare` of the same repository: fetching its
// objects, which plugin add does too before it reads the tree once.
func BenchmarkWideTreePlugin(b *testing.B) {
	requireGitBench(b)
	repo := wideTreeRepo(b, 100000)
	src, err := ParseSource("file://"+repo, "main")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	clone := func(b *testing.B) time.Duration {
		start := time.Now()
		benchRunGit(b, b.TempDir(), nil, "clone", "--quiet", "--bare", "file://"+repo, "ref.git")
		return time.Since(start)
	}
	b.Run("plugin-add", func(b *testing.B) {
		var ours, ref time.Duration
		for range b.N {
			s := newSyncStore(b)
			start := time.Now()
			if _, err := Add(ctx, s, src, AddPluginOptions{}); err != nil {
				b.Fatal(err)
			}
			ours += time.Since(start)
			ref += clone(b)
		}
		benchReport(b, ours, ref)
	})
	b.Run("sync-unchanged", func(b *testing.B) {
		s := newSyncStore(b)
		if _, err := Add(ctx, s, src, AddPluginOptions{}); err != nil {
			b.Fatal(err)
		}
		var ours, ref time.Duration
		for range b.N {
			start := time.Now()
			if _, err := Run(ctx, s, SyncOptions{}); err != nil {
				b.Fatal(err)
			}
			ours += time.Since(start)
			ref += clone(b)
		}
		benchReport(b, ours, ref)
	})
}
