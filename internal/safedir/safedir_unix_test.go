//go:build unix

package safedir

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOpenFileNeverFollowsOrBlocks(t *testing.T) {
	d, root := openTemp(t)
	vdir, unchanged := victim(t)
	if err := os.Symlink(filepath.Join(vdir, "precious.txt"), filepath.Join(root, "lock")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lock", "fifo", "dir"} {
		for _, flag := range []int{os.O_RDWR | os.O_CREATE, os.O_RDONLY, os.O_WRONLY | os.O_TRUNC} {
			f, err := d.OpenFile(name, flag, 0o644)
			if err == nil {
				f.Close()
			}
			if !errors.Is(err, ErrNotPlain) {
				t.Errorf("OpenFile(%s, %#x): %v, want ErrNotPlain", name, flag, err)
			}
		}
	}
	if _, err := d.ReadFile("fifo", 100); !errors.Is(err, ErrNotPlain) {
		t.Errorf("ReadFile(fifo): %v", err)
	}
	unchanged()
}
