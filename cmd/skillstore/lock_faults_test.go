package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/lockfile"
)

// TestWriterNotStarvedByReaderLoops runs six processes that list the store
// in a loop while a writer adds a skill and gc packs the store, each with a
// lock timeout of 10 s: both must get the lock (a waiting writer goes
// before readers that arrive after it).
func TestWriterNotStarvedByReaderLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("runs reader loops for a few seconds")
	}
	work := t.TempDir()
	storeDir := filepath.Join(work, "store")
	mustRun(t, storeDir, "init")
	// Enough skills that one verify reads for a while.
	dirs := []string{"add"}
	for i := range 300 {
		name := fmt.Sprintf("s%03d", i)
		writeTestSkill(t, filepath.Join(work, "many", name), name, strings.Repeat("text ", 200))
		dirs = append(dirs, filepath.Join(work, "many", name))
	}
	mustRun(t, storeDir, dirs...)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				// A long read: verify holds the shared side while it
				// hashes the store, so the loops overlap.
				runSkillstore(t, storeDir, "verify")
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	for i, args := range [][]string{{"add", filepath.Join(work, "b")}, {"gc"}, {"add", filepath.Join(work, "b")}} {
		if args[0] == "add" {
			writeTestSkill(t, filepath.Join(work, "b"), "b", strings.Repeat("x", i+1))
		}
		out, errOut, code := runSkillstore(t, storeDir, append([]string{"--lock-timeout", "10s"}, args...)...)
		if code != 0 {
			t.Fatalf("%s under six reader loops: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
}

// TestReadOnlyStoreReaders mounts a copy of a store read-only (a bind mount
// in a private mount namespace, which needs CAP_SYS_ADMIN) and runs the
// readers on it: list, show, cat and verify must work; a writer is refused
// with a clear error.
func TestReadOnlyStoreReaders(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare not installed")
	}
	work := t.TempDir()
	storeDir := filepath.Join(work, "store")
	mustRun(t, storeDir, "init")
	writeTestSkill(t, filepath.Join(work, "a"), "a", "first")
	mustRun(t, storeDir, "add", filepath.Join(work, "a"))
	mustRun(t, storeDir, "list") // the lock file and caches exist, as in a used store
	if out, err := exec.Command("unshare", "-m", "--", "sh", "-c", "mount --bind -o ro "+storeDir+" "+storeDir).CombinedOutput(); err != nil {
		t.Skipf("cannot make a read-only bind mount here (%v): %s", err, out)
	}
	bin := skillstoreBin(t)
	script := "set -e; mount --bind -o ro \"$1\" \"$1\"; shift; bin=$1; shift; s=$1; shift\n" +
		"if touch \"$s/skillstore/probe\" 2>/dev/null; then echo 'store still writable'; exit 9; fi\n" +
		"\"$bin\" --store \"$s\" list; \"$bin\" --store \"$s\" show a; \"$bin\" --store \"$s\" cat a SKILL.md; \"$bin\" --store \"$s\" verify\n" +
		"if \"$bin\" --store \"$s\" add \"$1\" 2>&1; then echo 'add succeeded on a read-only store'; exit 8; fi\n"
	cmd := exec.Command("unshare", "-m", "--", "sh", "-c", script, "sh", storeDir, bin, storeDir, filepath.Join(work, "a"))
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("readers on a read-only store: %v\n%s", err, out)
	}
	for _, want := range []string{"a ", "first", "ok: 1 skill,", "read-only file system"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// A store whose lock file was never made (or was deleted) is read
	// without the lock: it cannot be created, and no writer can use it.
	for _, name := range []string{"lock", "lock.gate"} {
		os.Remove(filepath.Join(storeDir, "skillstore", name))
	}
	cmd = exec.Command("unshare", "-m", "--", "sh", "-c", script, "sh", storeDir, bin, storeDir, filepath.Join(work, "a"))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "ok: 1 skill,") {
		t.Fatalf("readers on a read-only store without a lock file: %v\n%s", err, out)
	}
}

// TestNoOpSyncNeverTakesWriteLock holds the shared side of the store lock
// from this process (a reader of the store, as list or verify would be)
// while a skillstore process syncs twenty plugins (git and folder sources)
// and exports to a target with nothing to do: the sync must end well
// within its lock timeout without ever asking for the exclusive side (its
// --debug log names each lock it takes). Then an upstream change gives the
// sync something to write: with the reader still there it waits for the
// exclusive side and gives up (exit 3); once the reader is gone it writes.
func TestNoOpSyncNeverTakesWriteLock(t *testing.T) {
	requireGit(t)
	work := t.TempDir()
	storeDir := filepath.Join(work, "store")
	mustRun(t, storeDir, "init")
	for i := range 20 {
		up := filepath.Join(work, fmt.Sprintf("up%02d", i))
		for k := range 3 {
			name := fmt.Sprintf("s%02d-%d", i, k)
			writeTestSkill(t, filepath.Join(up, "skills", name), name, "body")
		}
		src := up
		if i%2 == 0 { // half are git repositories
			git(t, up, "init", "-q", "-b", "main")
			git(t, up, "add", "-A")
			git(t, up, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "v1")
			src = "file://" + up
		}
		mustRun(t, storeDir, "plugin", "add", "--id", fmt.Sprintf("p%02d", i), src)
	}
	mustRun(t, storeDir, "target", "add", "t", filepath.Join(work, "agent"))
	mustRun(t, storeDir, "sync")

	l, err := lockfile.Acquire(context.Background(), filepath.Join(storeDir, "skillstore", "lock"), lockfile.Shared, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	out, errOut, code := runSkillstore(t, storeDir, "--debug", "--lock-timeout", "2s", "sync")
	if code != 0 {
		t.Fatalf("no-op sync beside a reader: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(errOut, "mode=exclusive") {
		t.Errorf("a no-op sync took the exclusive lock:\n%s", errOut)
	}
	if !strings.Contains(errOut, `msg="store lock taken" mode=shared`) {
		t.Errorf("the debug log does not name the locks taken (the check above proves nothing):\n%s", errOut)
	}
	if out != "" {
		t.Errorf("a no-op sync printed:\n%s", out)
	}

	writeTestSkill(t, filepath.Join(work, "up01", "skills", "s01-0"), "s01-0", "changed upstream")
	_, errOut, code = runSkillstore(t, storeDir, "--lock-timeout", "300ms", "sync")
	if code != exitBusy || !strings.Contains(errOut, "gave up after") {
		t.Fatalf("a sync with something to write beside a reader: exit %d, want %d (busy)\n%s", code, exitBusy, errOut)
	}
	l.Release()
	if out := mustRun(t, storeDir, "sync"); !strings.Contains(out, "p01:s01-0: fast-forward, v1 -> v2") {
		t.Errorf("the sync after the reader left:\n%s", out)
	}
}
