package pluginsync

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// wideTreeRepo commits, in a new git repository, a plugin with one skill
// and n empty files in the folder big/ outside it, built with git's
// plumbing (mktree, read-tree: no work tree of n files is written).
func wideTreeRepo(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "wide")
	storetest.WriteFile(b, filepath.Join(dir, "skills", "lint", "SKILL.md"), storetest.SkillMD("lint", "Run the linter."))
	storetest.Git(b, dir, "init", "-q", "-b", "main")
	storetest.Git(b, dir, "add", "-A")
	empty := strings.TrimSpace(storetest.Git(b, dir, "hash-object", "-w", "/dev/null"))
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
	storetest.Git(b, dir, "read-tree", "--prefix=big/", strings.TrimSpace(string(tree)))
	storetest.Git(b, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "wide")
	return dir
}

// BenchmarkWideTreePlugin adds and syncs a git plugin whose one skill sits
// beside a folder of 100,000 empty files (issue #32: reading the tree cost
// a decode of that folder per file, ~40 s per add and per sync). The
// reference is `git clone --bare` of the same repository: fetching its
// objects, which plugin add does too before it reads the tree once.
func BenchmarkWideTreePlugin(b *testing.B) {
	storetest.NeedGit(b)
	repo := wideTreeRepo(b, 100000)
	src, err := plugins.ParseSource("file://"+repo, "main")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	clone := func(b *testing.B) time.Duration {
		start := time.Now()
		storetest.BenchGit(b, b.TempDir(), nil, "clone", "--quiet", "--bare", "file://"+repo, "ref.git")
		return time.Since(start)
	}
	b.Run("plugin-add", func(b *testing.B) {
		var ours, ref time.Duration
		for range b.N {
			s := storetest.NewStore(b)
			start := time.Now()
			if _, err := Add(ctx, s, src, AddOptions{}); err != nil {
				b.Fatal(err)
			}
			ours += time.Since(start)
			ref += clone(b)
		}
		storetest.BenchReport(b, ours, ref)
	})
	b.Run("sync-unchanged", func(b *testing.B) {
		s := storetest.NewStore(b)
		if _, err := Add(ctx, s, src, AddOptions{}); err != nil {
			b.Fatal(err)
		}
		var ours, ref time.Duration
		for range b.N {
			start := time.Now()
			if _, err := Run(ctx, s, Options{}); err != nil {
				b.Fatal(err)
			}
			ours += time.Since(start)
			ref += clone(b)
		}
		storetest.BenchReport(b, ours, ref)
	})
}
