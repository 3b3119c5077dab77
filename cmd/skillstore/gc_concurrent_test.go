package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
)

// TestGCLetsReadersAndWritersRun holds a real gc process once its new
// pack is written, before its switch, and meanwhile runs list, show and
// two adds with a short lock timeout: they all finish, so gc holds no
// store lock while it writes. One add brings back a purged skill whose
// objects gc's snapshot did not reach and that only the old packs hold:
// gc keeps them at its switch, and git fsck --strict and verify accept
// the store afterwards.
func TestGCLetsReadersAndWritersRun(t *testing.T) {
	requireGit(t)
	work := t.TempDir()
	storeDir := filepath.Join(work, "store")
	mustRun(t, storeDir, "init")
	root := filepath.Join(work, "root")
	// Enough skills that the import writes a pack (gitdb.PackThreshold
	// new objects), not loose objects.
	for i := 0; i < 40; i++ {
		writeTestSkill(t, filepath.Join(root, fmt.Sprintf("bulk-%02d", i)), fmt.Sprintf("bulk-%02d", i), "version one")
	}
	mustRun(t, storeDir, "import", root) // a pack
	solo := filepath.Join(work, "edit", "solo")
	writeTestSkill(t, solo, "solo", "first")
	written := parseRecorded(mustRun(t, storeDir, "add", solo)) // loose objects
	mustRun(t, storeDir, "rm", "--purge", "--yes", "bulk-05")
	// A purged skill whose objects are loose: gc prunes them.
	gone := filepath.Join(work, "edit", "gone")
	writeTestSkill(t, gone, "gone", "soon purged")
	mustRun(t, storeDir, "add", gone)
	mustRun(t, storeDir, "rm", "--purge", "--yes", "gone")

	hold := filepath.Join(work, "hold")
	if err := os.WriteFile(hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	gc := exec.Command(skillstoreBin(t), "--store", storeDir, "gc", "--grace", "0s", "--json")
	gc.Env = append(os.Environ(), app.GCHoldEnv+"="+hold)
	var gcOut, gcErr bytes.Buffer
	gc.Stdout, gc.Stderr = &gcOut, &gcErr
	if err := gc.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- gc.Wait() }()
	defer gc.Process.Kill() // when the test fails with gc held
	deadline := time.After(2 * time.Minute)
	for held := false; !held; {
		select {
		case err := <-done:
			t.Fatalf("gc ended before its switch (%v):\n%s", err, gcErr.String())
		case <-deadline:
			t.Fatal("gc did not write its pack in time")
		case <-time.After(20 * time.Millisecond):
			_, err := os.Stat(hold + ".held")
			held = err == nil
		}
	}

	// gc is held between writing its pack and its switch.
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := runSkillstore(t, storeDir, append([]string{"--lock-timeout", "2s"}, args...)...)
		if code != 0 {
			t.Fatalf("skillstore %s while gc writes its pack: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	if out := run("list"); !strings.Contains(out, "bulk-19") {
		t.Errorf("list while gc writes its pack lacks bulk-19:\n%s", out)
	}
	if out := run("show", "solo"); !strings.Contains(out, "solo") {
		t.Errorf("show solo while gc writes its pack:\n%s", out)
	}
	writeTestSkill(t, solo, "solo", "second")
	written = append(written, parseRecorded(run("add", solo))...)
	// The purged skill again, with the very files whose blobs and tree
	// only the old import pack holds.
	written = append(written, parseRecorded(run("add", filepath.Join(root, "bulk-05")))...)
	if len(written) != 3 {
		t.Fatalf("versions reported written: %+v", written)
	}

	os.Remove(hold)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("gc: %v\n%s", err, gcErr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("gc did not finish")
	}
	var res struct {
		Rescued int `json:"rescued"`
		Pruned  int `json:"pruned"`
	}
	if err := json.Unmarshal(gcOut.Bytes(), &res); err != nil || res.Rescued == 0 || res.Pruned == 0 {
		t.Errorf("gc = %s (%v); want objects rescued (bulk-05's, found in the old pack) and the loose objects of purged skill gone pruned", gcOut.String(), err)
	}
	checkStoreSound(t, storeDir, written)
	if out := mustRun(t, storeDir, "show", "bulk-05"); !strings.Contains(out, "bulk-05") {
		t.Errorf("show bulk-05 after gc:\n%s", out)
	}
	// A gc with nothing held after it packs it all.
	mustRun(t, storeDir, "gc", "--grace", "0s")
	checkStoreSound(t, storeDir, written)
	if packs, _ := filepath.Glob(filepath.Join(storeDir, "objects", "pack", "*.pack")); len(packs) != 1 {
		t.Errorf("after a second gc: %d packs, want 1", len(packs))
	}
}

// TestGCKilledWhileWritersRun runs real gc processes beside writers
// (add, and a purge then re-add of a skill whose objects only an old
// pack holds), kills each gc at a random moment, sometimes during its
// switch, and checks that git fsck --strict and verify accept the store
// and that every version a writer reported is there.
func TestGCKilledWhileWritersRun(t *testing.T) {
	requireGit(t)
	const rounds = 12
	work := t.TempDir()
	storeDir := filepath.Join(work, "store")
	mustRun(t, storeDir, "init")
	root := filepath.Join(work, "root")
	for i := 0; i < 30; i++ {
		writeTestSkill(t, filepath.Join(root, fmt.Sprintf("bulk-%02d", i)), fmt.Sprintf("bulk-%02d", i), "version one")
	}
	mustRun(t, storeDir, "import", root)
	solo := filepath.Join(work, "edit", "solo")
	writeTestSkill(t, solo, "solo", "first")
	written := parseRecorded(mustRun(t, storeDir, "add", solo))
	start := time.Now()
	mustRun(t, storeDir, "gc", "--grace", "0s")
	gcTime := time.Since(start)

	rng := rand.New(rand.NewPCG(3, uint64(time.Now().UnixNano())))
	for i := 0; i < rounds; i++ {
		// bulk-07 leaves and comes back with the same files every other
		// round: its blobs are in gc's old pack, unreachable in between.
		back := i%2 == 1
		if !back {
			mustRun(t, storeDir, "rm", "--purge", "--yes", "bulk-07")
		}
		gc := exec.Command(skillstoreBin(t), "--store", storeDir, "gc", "--grace", "0s")
		var gcOut bytes.Buffer
		gc.Stdout, gc.Stderr = &gcOut, &gcOut
		if err := gc.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- gc.Wait() }()
		writeTestSkill(t, solo, "solo", fmt.Sprintf("round %d", i))
		out, errOut, code := runSkillstore(t, storeDir, "--lock-timeout", "1m", "add", solo)
		if code != 0 {
			t.Fatalf("add beside gc: exit %d\n%s%s", code, out, errOut)
		}
		written = append(written, parseRecorded(out)...)
		if back {
			out, errOut, code := runSkillstore(t, storeDir, "--lock-timeout", "1m", "add", filepath.Join(root, "bulk-07"))
			if code != 0 {
				t.Fatalf("re-add beside gc: exit %d\n%s%s", code, out, errOut)
			}
			if len(parseRecorded(out)) != 1 {
				t.Fatalf("re-add of bulk-07 recorded no version:\n%s", out)
			}
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("gc beside writers: %v\n%s", err, gcOut.String())
			}
		case <-time.After(time.Duration(rng.Int64N(int64(gcTime) * 3 / 2))):
			gc.Process.Kill()
			<-done
		}
		if i%4 == 3 { // bulk-07 is back
			checkStoreSound(t, storeDir, written)
			mustRun(t, storeDir, "cat", "bulk-07")
		}
	}
	mustRun(t, storeDir, "gc", "--grace", "0s")
	checkStoreSound(t, storeDir, written)
	mustRun(t, storeDir, "cat", "bulk-07")
}
