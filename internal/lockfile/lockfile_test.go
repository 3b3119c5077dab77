package lockfile

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHelperProcess is not a test: the tests below re-execute the test binary
// to hold the lock from another process.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv("LOCKFILE_HELPER_PATH")
	if path == "" {
		t.Skip("helper process only")
	}
	mode := Shared
	if os.Getenv("LOCKFILE_HELPER_MODE") == "exclusive" {
		mode = Exclusive
	}
	l, err := Acquire(context.Background(), path, mode, 10*time.Second)
	if err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin) // hold until the parent closes stdin
	l.Release()
	os.Exit(0)
}

// holdInOtherProcess starts a process holding the lock and returns it once the
// lock is taken.
func holdInOtherProcess(t *testing.T, path string, mode Mode) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "LOCKFILE_HELPER_PATH="+path, "LOCKFILE_HELPER_MODE="+mode.String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper: %q, %v", line, err)
	}
	return cmd, stdin
}

func TestExclusiveHolderIsNamedAndReleasedOnDeath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	cmd, _ := holdInOtherProcess(t, path, Exclusive)

	_, err := Acquire(context.Background(), path, Shared, 100*time.Millisecond)
	var busy *BusyError
	if !errors.As(err, &busy) || !errors.Is(err, ErrBusy) {
		t.Fatalf("shared acquire under a writer: %v, want a BusyError", err)
	}
	if busy.Holder.PID != cmd.Process.Pid {
		t.Errorf("holder pid = %d, want %d", busy.Holder.PID, cmd.Process.Pid)
	}
	if !strings.Contains(err.Error(), "pid ") || !strings.Contains(err.Error(), "TestHelperProcess") {
		t.Errorf("error %q does not name the holder and its command", err)
	}

	// SIGKILL: the kernel drops the lock with the process.
	cmd.Process.Kill()
	cmd.Wait()
	l, err := Acquire(context.Background(), path, Exclusive, 5*time.Second)
	if err != nil {
		t.Fatalf("acquire after the holder died: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if h := ReadHolder(path); h.PID != 0 {
		t.Errorf("holder after release = %+v, want none", h)
	}
}

func TestSharedHoldersCoexistAndExcludeWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	_, stdin := holdInOtherProcess(t, path, Shared)

	r, err := Acquire(context.Background(), path, Shared, time.Second)
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	defer r.Release()

	_, err = Acquire(context.Background(), path, Exclusive, 50*time.Millisecond)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("writer under readers: %v, want ErrBusy", err)
	}
	if !strings.Contains(err.Error(), "readers") {
		t.Errorf("error %q should say readers hold the lock", err)
	}
	r.Release()
	stdin.Close() // the helper releases and exits

	w, err := Acquire(context.Background(), path, Exclusive, 5*time.Second)
	if err != nil {
		t.Fatalf("writer after readers left: %v", err)
	}
	w.Release()
}

func TestAcquireHonoursContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	w, err := Acquire(context.Background(), path, Exclusive, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Acquire(ctx, path, Exclusive, time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
