package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestAutoPackSurvivesSIGKILL kills real imports at random moments in a
// store whose gc.autoPackLimit is 1, so that most imports end by merging
// packs (the pack step after a write, store.autoPack): after every kill
// git fsck --strict and verify accept the store, and no version a process
// reported as written is lost. The seed is logged.
func TestAutoPackSurvivesSIGKILL(t *testing.T) {
	requireGit(t)
	const kills = 16
	work := t.TempDir()
	storeDir := filepath.Join(work, "store")
	mustRun(t, storeDir, "init")
	git(t, storeDir, "config", "gc.autoPackLimit", "1")
	root := filepath.Join(work, "root")
	importRound := func(i int) []string {
		for j := 0; j < 40; j++ {
			writeTestSkill(t, filepath.Join(root, fmt.Sprintf("bulk-%02d", j)), fmt.Sprintf("bulk-%02d", j), fmt.Sprintf("round %d", i))
		}
		return []string{"--store", storeDir, "import", root}
	}
	var written []reported
	start := time.Now()
	written = append(written, parseRecorded(mustRun(t, storeDir, importRound(-1)[2:]...))...)
	written = append(written, parseRecorded(mustRun(t, storeDir, importRound(-2)[2:]...))...)
	took := time.Since(start) / 2
	if packs, _ := filepath.Glob(filepath.Join(storeDir, "objects", "pack", "*.pack")); len(packs) != 1 {
		t.Fatalf("two imports with gc.autoPackLimit 1 left %d packs, want them merged into one", len(packs))
	}

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for killed, i := 0, 0; killed < kills; i++ {
		cmd := exec.Command(skillstoreBin(t), importRound(i)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("import exited on its own with %v:\n%s", err, out.String())
			}
		case <-time.After(time.Duration(rng.Int64N(int64(took) * 12 / 10))):
			cmd.Process.Kill()
			<-done
			killed++
		}
		written = append(written, parseRecorded(out.String())...)
		checkStoreSound(t, storeDir, written)
	}
	mustRun(t, storeDir, "gc", "--grace", "0s")
	checkStoreSound(t, storeDir, written)
}
