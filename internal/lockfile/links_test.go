package lockfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/safedir"
)

// A lock file, or its gate, that someone replaced with a link (a project
// committing a target's bookkeeping folder) is refused, naming it, and
// the file it points at is never truncated or written.
func TestLinkedLockOrGateIsRefusedUntouched(t *testing.T) {
	for _, linked := range []string{"lock", "lock.gate"} {
		for _, mode := range []Mode{Exclusive, Shared} {
			t.Run(linked+"/"+mode.String(), func(t *testing.T) {
				dir := t.TempDir()
				victim := filepath.Join(t.TempDir(), "precious")
				const content = "not a lock file\n"
				if err := os.WriteFile(victim, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				symlink(t, victim, filepath.Join(dir, linked))
				l, err := Acquire(context.Background(), filepath.Join(dir, "lock"), mode, time.Second)
				if err == nil {
					l.Release()
				}
				// A reader refuses a linked gate too: it would flock the
				// file the link points at.
				if !errors.Is(err, safedir.ErrNotPlain) || !strings.Contains(err.Error(), filepath.Join(dir, linked)) {
					t.Fatalf("err = %v, want a refusal naming %s", err, linked)
				}
				if data, err := os.ReadFile(victim); err != nil || string(data) != content {
					t.Fatalf("the file the link points at changed: %q, %v", data, err)
				}
			})
		}
	}
}

// symlink makes a symbolic link, or skips the test where this system
// cannot (Windows without the privilege; wine, whose links do not
// appear).
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		if runtime.GOOS == "windows" {
			t.Skip("this account cannot make symbolic links:", err)
		}
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Skip("symbolic links made here do not appear (wine):", err)
	}
}
