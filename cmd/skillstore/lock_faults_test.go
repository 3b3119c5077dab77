package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
