package lockfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The writer's record is read through another handle while the writer
// holds the lock, so a waiter can name the holder. On Windows byte-range
// locks are mandatory: a lock over the record would make that read fail
// and the message name nobody, so the lock covers a byte past it.
func TestHolderReadWhileLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	w, err := Acquire(context.Background(), path, Exclusive, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	for _, mode := range []Mode{Shared, Exclusive} {
		_, err := Acquire(context.Background(), path, mode, 20*time.Millisecond)
		var busy *BusyError
		if !errors.As(err, &busy) {
			t.Fatalf("%s acquire under a writer of this process: %v, want a BusyError", mode, err)
		}
		if busy.Holder.PID != os.Getpid() {
			t.Errorf("%s acquire: holder = %+v, want this process (%d)", mode, busy.Holder, os.Getpid())
		}
	}
	if h := ReadHolder(path); h.PID != os.Getpid() || h.Command == "" {
		t.Errorf("ReadHolder while locked = %+v, want pid %d and its command", h, os.Getpid())
	}
}

// A record that names a process that has exited names no holder: a
// writer that crashed before clearing its record is not blamed.
func TestHolderThatExitedIsNone(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$") // runs no test and exits
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "lock")
	write := func(pid int) {
		t.Helper()
		if err := os.WriteFile(path, fmt.Appendf(nil, "%d skillstore sync\n", pid), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(cmd.Process.Pid)
	if h := ReadHolder(path); h != (Holder{}) {
		t.Errorf("holder of a record whose process exited = %+v, want none", h)
	}
	write(os.Getpid())
	if h := ReadHolder(path); h.PID != os.Getpid() || h.Command != "skillstore sync" {
		t.Errorf("holder of a record of this process = %+v", h)
	}
}
