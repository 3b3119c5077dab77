package pluginsync

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/lockfile"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// The sync helper process: the test binary re-run with these variables set
// syncs the store at $SKILLSTORE_SYNC_HELPER and exits like the CLI does
// (0 done, 1 failed, 3 lock busy, 4 candidates waiting).
const (
	helperEnv        = "SKILLSTORE_SYNC_HELPER"
	helperTimeoutEnv = "SKILLSTORE_SYNC_HELPER_TIMEOUT"
)

func TestSyncHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process for the crash and concurrency tests")
	}
	timeout, _ := time.ParseDuration(os.Getenv(helperTimeoutEnv))
	s, err := store.Open(context.Background(), dir, store.Options{LockTimeout: timeout, Actor: store.Signature{Name: "cron", Email: "cron@example.com"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rep, err := Run(context.Background(), s, Options{})
	switch {
	case errors.Is(err, store.ErrLockBusy):
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	case err != nil || rep.Failed():
		fmt.Fprintln(os.Stderr, err, rep)
		os.Exit(1)
	case rep.CandidatesWaiting > 0:
		os.Exit(4)
	}
	os.Exit(0)
}

// syncProcess starts a helper process syncing the store at dir; its
// output goes to the returned builder.
func syncProcess(t *testing.T, dir string, lockTimeout time.Duration) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSyncHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir, helperTimeoutEnv+"="+lockTimeout.String())
	out := &strings.Builder{}
	cmd.Stderr, cmd.Stdout = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// outputOf is what a helper process printed.
func outputOf(cmd *exec.Cmd) string { return cmd.Stdout.(*strings.Builder).String() }

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// crashFixture builds a store with plugins whose upstream has changed in
// every way sync classifies: fast-forwards, clean three-way merges,
// conflicts, already-applied edits, local-only edits, a new skill and a
// removed one per plugin, plus one git plugin.
func crashFixture(t *testing.T, nPlugins, skills int) (storeDir string) {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	s, err := store.Init(ctx, filepath.Join(root, "store"), store.Options{Actor: store.Signature{Name: "setup", Email: "setup@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	lines := func(name string, l ...string) string { return storetest.SkillMD(name, l...) }
	base := []string{"one", "two", "three", "four", "five"}
	for p := range nPlugins {
		up := filepath.Join(root, "upstream", fmt.Sprintf("p%02d", p))
		for k := range skills {
			name := fmt.Sprintf("p%02d-s%02d", p, k)
			storetest.WriteFile(t, filepath.Join(up, "skills", name, "SKILL.md"), lines(name, base...))
			storetest.WriteFile(t, filepath.Join(up, "skills", name, "references", "notes.md"), "notes of "+name+"\n")
		}
		src, err := plugins.ParseSource(up, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Add(ctx, s, src, AddOptions{}); err != nil {
			t.Fatal(err)
		}
		for k := range skills {
			name := fmt.Sprintf("p%02d-s%02d", p, k)
			md := filepath.Join(up, "skills", name, "SKILL.md")
			switch k % 5 {
			case 0: // upstream only: fast-forward
				storetest.WriteFile(t, md, lines(name, "one", "two", "three", "four", "five upstream"))
			case 1: // both, apart: clean three-way
				storetest.LocalEdit(t, s, store.QualifiedName(fmt.Sprintf("p%02d", p), name), lines(name, "one local", "two", "three", "four", "five"))
				storetest.WriteFile(t, md, lines(name, "one", "two", "three", "four", "five upstream"))
			case 2: // both, same line: conflict
				storetest.LocalEdit(t, s, store.QualifiedName(fmt.Sprintf("p%02d", p), name), lines(name, "one local", "two", "three", "four", "five"))
				storetest.WriteFile(t, md, lines(name, "one upstream", "two", "three", "four", "five"))
			case 3: // the same edit on both sides: already-applied
				storetest.LocalEdit(t, s, store.QualifiedName(fmt.Sprintf("p%02d", p), name), lines(name, "same", "two", "three", "four", "five"))
				storetest.WriteFile(t, md, lines(name, "same", "two", "three", "four", "five"))
			case 4: // local only: unchanged
				storetest.LocalEdit(t, s, store.QualifiedName(fmt.Sprintf("p%02d", p), name), lines(name, "one local", "two", "three", "four", "five"))
			}
		}
		newName := fmt.Sprintf("p%02d-new", p)
		storetest.WriteFile(t, filepath.Join(up, "skills", newName, "SKILL.md"), lines(newName, "brand new"))
		if err := os.RemoveAll(filepath.Join(up, "skills", fmt.Sprintf("p%02d-s%02d", p, skills-1))); err != nil {
			t.Fatal(err)
		}
	}
	repo := filepath.Join(root, "upstream", "gitp")
	storetest.WriteFile(t, filepath.Join(repo, "skills", "gitp-one", "SKILL.md"), lines("gitp-one", base...))
	storetest.Git(t, repo, "init", "-q", "-b", "main")
	storetest.Git(t, repo, "add", "-A")
	storetest.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one")
	src, err := plugins.ParseSource("file://"+repo, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Add(ctx, s, src, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	storetest.WriteFile(t, filepath.Join(repo, "skills", "gitp-one", "SKILL.md"), lines("gitp-one", "changed upstream"))
	storetest.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-am", "two")
	// Few files copy fast: every run starts from a copy of this store.
	storetest.Git(t, s.Dir(), "repack", "-a", "-d", "-q")
	storetest.Git(t, s.Dir(), "pack-refs", "--all")
	return s.Dir()
}

// storeSignature describes a store's content without commit ids (which
// hold times): every skill's versions (number, tree, merge mode, parents'
// trees), upstream snapshot chains, candidates, plugin records and sources.
// Two stores with equal signatures hold the same versions, snapshots and
// candidates, none duplicated or missing.
func storeSignature(t *testing.T, dir string) string {
	t.Helper()
	s, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	err = s.View(context.Background(), func(r *store.Reader) error {
		treeOf := func(h store.Hash) string {
			c, err := r.Commit(h)
			if err != nil {
				return "missing:" + err.Error()
			}
			return c.Tree.String()[:10]
		}
		for _, ref := range r.RefNames("refs/") {
			h, _ := r.Ref(ref)
			fmt.Fprintf(&b, "%s:", ref)
			switch {
			case strings.HasPrefix(ref, store.SourceRefPrefix):
				fmt.Fprintf(&b, " %s", h)
			case ref == store.StateRef:
				fmt.Fprintf(&b, " tree %s", treeOf(h))
			default:
				// First-parent chain with each commit's tree, trailers
				// that matter and the trees of its other parents.
				for n := 0; !h.IsZero() && n < 100; n++ {
					c, err := r.Commit(h)
					if err != nil {
						return err
					}
					fmt.Fprintf(&b, " [%s v%s %s", c.Tree.String()[:10], c.Trailer(store.TrailerVersion), c.Trailer(store.TrailerMergeMode))
					for _, p := range c.Parents[min(1, len(c.Parents)):] {
						fmt.Fprintf(&b, " +%s", treeOf(p))
					}
					b.WriteString("]")
					h = store.ZeroHash
					if len(c.Parents) > 0 {
						h = c.Parents[0]
					}
				}
			}
			b.WriteString("\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSyncKilledAtRandomPoints kills sync processes with SIGKILL at random
// moments, 50 times over, then lets a last sync finish: the store must
// verify and hold exactly what one uninterrupted sync produces.
func TestSyncKilledAtRandomPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	template := crashFixture(t, 3, 10)

	ref := storetest.CopyStore(t, template)
	start := time.Now()
	if code := exitCode(syncProcess(t, ref, time.Minute).Wait()); code != 4 {
		t.Fatalf("uninterrupted sync exited %d, want 4 (candidates wait)", code)
	}
	window := time.Since(start)
	storetest.CheckStore(t, ref)
	want := storeSignature(t, ref)
	if code := exitCode(syncProcess(t, ref, time.Minute).Wait()); code != 4 || storeSignature(t, ref) != want {
		t.Fatalf("a second sync changed the store (exit %d)", code)
	}

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("seed %d, kill window %v", seed, window)
	const runs = 50
	for i := range runs {
		dir := storetest.CopyStore(t, template)
		for range 1 + rng.IntN(2) { // one or two crashes in a row
			cmd := syncProcess(t, dir, time.Minute)
			time.Sleep(time.Duration(rng.Int64N(int64(window))))
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
		}
		last := syncProcess(t, dir, time.Minute)
		if code := exitCode(last.Wait()); code != 4 {
			t.Fatalf("run %d (seed %d): the sync after the crash exited %d: %s", i, seed, code, outputOf(last))
		}
		storetest.CheckStore(t, dir)
		if got := storeSignature(t, dir); got != want {
			t.Fatalf("run %d (seed %d): the store differs from an uninterrupted sync:\n%s", i, seed, lineDiff(want, got))
		}
	}
}

// TestSyncConcurrent starts two syncs together (cron overlap): one waits
// for the other and the result equals one sync. A sync that cannot get the
// lock in time exits 3 naming the holder.
func TestSyncConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	template := crashFixture(t, 2, 5)
	ref := storetest.CopyStore(t, template)
	if code := exitCode(syncProcess(t, ref, time.Minute).Wait()); code != 4 {
		t.Fatalf("sync exited %d", code)
	}
	want := storeSignature(t, ref)

	dir := storetest.CopyStore(t, template)
	a, b := syncProcess(t, dir, time.Minute), syncProcess(t, dir, time.Minute)
	codes := []int{exitCode(a.Wait()), exitCode(b.Wait())}
	if !slices.Equal(codes, []int{4, 4}) {
		t.Fatalf("two syncs exited %v, want both 4", codes)
	}
	storetest.CheckStore(t, dir)
	if got := storeSignature(t, dir); got != want {
		t.Fatalf("two overlapping syncs differ from one:\n%s", lineDiff(want, got))
	}

	held, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := lockfile.Acquire(context.Background(), held.LocalPath("lock"), lockfile.Exclusive, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSyncHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir, helperTimeoutEnv+"=200ms")
	out, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 3 {
		t.Fatalf("sync with the lock held exited %d: %s", code, out)
	}
	if want := fmt.Sprintf("locked by pid %d", os.Getpid()); !strings.Contains(string(out), want) {
		t.Errorf("busy message %q does not name the holder (%s)", out, want)
	}
}

// lineDiff lists the lines only in want (-) or only in got (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []string
	for _, l := range w {
		if !slices.Contains(g, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
