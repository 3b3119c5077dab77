//go:build unix

package lockfile

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/safedir"
)

// A FIFO in place of the lock file is refused at once instead of hanging.
func TestFIFOLockIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "lock"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Acquire(context.Background(), filepath.Join(dir, "lock"), Exclusive, time.Second)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, safedir.ErrNotPlain) || !strings.Contains(err.Error(), "FIFO") {
			t.Fatalf("err = %v, want a refusal of the FIFO", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Acquire blocked on a FIFO")
	}
}
