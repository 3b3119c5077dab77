//go:build unix

package safefile

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A link to /dev/zero would be read forever by os.ReadFile.
func TestReadFileDevice(t *testing.T) {
	p := filepath.Join(t.TempDir(), "skills-lock.json")
	symlink(t, "/dev/zero", p)
	_, err := ReadFile(p, 1<<20)
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a device") {
		t.Fatalf("ReadFile of a link to /dev/zero: %v, want ErrNotRegular (a device)", err)
	}
}

// A FIFO with no writer would block os.ReadFile forever.
func TestReadFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(p, 100)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a FIFO") {
			t.Fatalf("ReadFile of a FIFO: %v, want ErrNotRegular (a FIFO)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFile of a FIFO blocked")
	}
}
