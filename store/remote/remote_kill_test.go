package remote

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
)

// The remote helper process: the test binary re-run with these variables
// set pushes or pulls the store at $SKILLSTORE_REMOTE_HELPER_DIR.
const (
	remoteHelperEnv    = "SKILLSTORE_REMOTE_HELPER"
	remoteHelperDirEnv = "SKILLSTORE_REMOTE_HELPER_DIR"
)

func TestRemoteHelperProcess(t *testing.T) {
	op := os.Getenv(remoteHelperEnv)
	if op == "" {
		t.Skip("helper process for the kill tests")
	}
	ctx := context.Background()
	s, err := store.Open(ctx, os.Getenv(remoteHelperDirEnv), store.Options{Actor: store.Signature{Name: "helper", Email: "h@example.com"}})
	if err == nil {
		switch op {
		case "push":
			_, err = Push(ctx, s, PushOptions{})
		case "pull":
			_, err = Pull(ctx, s, PullOptions{})
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v (%T)\n", op, err, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func remoteProcess(t *testing.T, op, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRemoteHelperProcess$")
	cmd.Env = append(os.Environ(), remoteHelperEnv+"="+op, remoteHelperDirEnv+"="+dir)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// bulkStore publishes skills × versions in one transaction.
func bulkStore(t testing.TB, s *store.Store, skills, versions int) {
	t.Helper()
	err := s.Update(context.Background(), func(tx *store.Tx) error {
		for i := range skills {
			name := fmt.Sprintf("skill-%04d", i)
			for v := range versions {
				files := []store.File{
					{Path: "SKILL.md", Mode: skillfs.Regular, Data: []byte(storetest.SkillMD(name, fmt.Sprintf("Version %d of %s.", v+1, name), strings.Repeat("Some instructions.\n", 20)))},
					{Path: "reference/notes.md", Mode: skillfs.Regular, Data: []byte(fmt.Sprintf("notes %d\n%s", v/3, strings.Repeat("Background.\n", 40)))},
				}
				tree, err := tx.WriteTree(files)
				if err != nil {
					return err
				}
				if _, err := tx.CommitVersion(name, tree, store.VersionInfo{Reason: "bulk"}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// timeHelper runs op to completion in a helper process and returns how long
// it took.
func timeHelper(t *testing.T, op, dir string) time.Duration {
	t.Helper()
	start := time.Now()
	cmd := remoteProcess(t, op, dir)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v\n%s", op, err, outputOf(cmd))
	}
	return time.Since(start)
}

// spread is the i-th of n kill moments over a run of length total, with
// jitter.
func spread(total time.Duration, i, n int) time.Duration {
	step := total / time.Duration(n)
	return step*time.Duration(i) + rand.N(step+1)
}

// killAfter runs op on dir in a helper process and kills it with SIGKILL
// after delay; it reports whether the process finished before the kill.
func killAfter(t *testing.T, op, dir string, delay time.Duration) bool {
	t.Helper()
	cmd := remoteProcess(t, op, dir)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		// The server may still be finishing the receive of a push killed
		// just before: its compare-and-swap then refuses this one.
		if err != nil && !strings.Contains(outputOf(cmd), ErrRemoteRejected.Error()) {
			t.Fatalf("%s finished with %v, output %q", op, err, outputOf(cmd))
		}
		return err == nil
	case <-time.After(delay):
		cmd.Process.Signal(syscall.SIGKILL)
		err := <-done
		return err == nil
	}
}

// TestPushPullKilled kills push and pull processes with SIGKILL at random
// moments over git daemon: after every kill the three repositories pass
// git fsck --strict (and both stores skillstore's verify), and a last run
// completes with both stores holding the same published history.
func TestPushPullKilled(t *testing.T) {
	d := startGitDaemon(t)
	url := d.newRepo(t, "central.git")
	alice := newActorStore(t, "alice")
	bulkStore(t, alice, 150, 3)
	mustAddRemote(t, alice, "origin", url)
	bob := newActorStore(t, "bob")
	mustAddRemote(t, bob, "origin", url)

	// Calibrate: how long an uninterrupted push and pull take here, on a
	// copy pushing to another repository on the same daemon.
	probe := d.newRepo(t, "probe.git")
	probeAlice, err := store.Open(context.Background(), storetest.CopyStore(t, alice.Dir()), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Remove(context.Background(), probeAlice, "origin"); err != nil {
		t.Fatal(err)
	}
	mustAddRemote(t, probeAlice, "origin", probe)
	probeBob := newActorStore(t, "probe")
	mustAddRemote(t, probeBob, "origin", probe)
	pushTime := timeHelper(t, "push", probeAlice.Dir())
	pullTime := timeHelper(t, "pull", probeBob.Dir())

	// Kill at moments spread over the whole operation; once a run gets
	// through, the next ones have little left to do.
	const rounds = 5
	finished := 0
	for i := range rounds {
		if killAfter(t, "push", alice.Dir(), spread(pushTime, i, rounds)) {
			finished++
		}
		storetest.CheckStore(t, alice.Dir())
		remoteGit(t, d.path("central.git"), "fsck", "--strict", "--no-dangling")
	}
	pushSettled(t, alice)
	for i := range rounds {
		if killAfter(t, "pull", bob.Dir(), spread(pullTime, i, rounds)) {
			finished++
		}
		storetest.CheckStore(t, bob.Dir())
	}
	mustPull(t, bob, "")
	storetest.CheckStore(t, bob.Dir())
	if a, b := refValues(t, alice.Dir(), store.SkillRefPrefix), refValues(t, bob.Dir(), store.SkillRefPrefix); a != b || a == "" {
		t.Errorf("after the reruns the stores differ")
	}
	t.Logf("%d of %d runs finished before their kill", finished, 2*rounds)
	if finished == 2*rounds {
		t.Logf("no kill landed mid-operation in %d tries", 2*rounds)
	}
	// A killed push never leaves a partial update on the server.
	if got, want := refValues(t, d.path("central.git"), store.SkillRefPrefix), refValues(t, alice.Dir(), store.SkillRefPrefix); got != want {
		t.Errorf("central differs from alice after the final push")
	}
}

// pushSettled pushes until the server has finished with the pushes killed
// before (its receive-pack may still hold the refs for a moment).
func pushSettled(t *testing.T, s *store.Store) {
	t.Helper()
	for try := 0; ; try++ {
		_, err := Push(context.Background(), s, PushOptions{})
		if err == nil {
			return
		}
		if !errors.Is(err, ErrRemoteRejected) || try == 50 {
			t.Fatalf("push: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
