package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReadFileRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock.json")
	if err := os.WriteFile(p, []byte(`{"version":3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := ReadFile(p, 100)
	if err != nil || string(data) != `{"version":3}` {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
}

func TestReadFileTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(p, make([]byte, 101), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(p, 100)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Fatalf("ReadFile of 101 bytes with limit 100: %v, want ErrTooLarge naming %s", err, p)
	}
	if _, err := ReadFile(p, 101); err != nil {
		t.Fatalf("ReadFile at exactly the limit: %v", err)
	}
}

func TestReadFileFolder(t *testing.T) {
	_, err := ReadFile(t.TempDir(), 100)
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("ReadFile of a folder: %v, want ErrNotRegular", err)
	}
}

func TestNoFollow(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	link := filepath.Join(dir, "link")
	if err := os.WriteFile(real, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, real, link)
	if _, err := ReadFile(link, 10); err != nil {
		t.Fatalf("ReadFile follows a link by default: %v", err)
	}
	_, err := ReadFileWith(link, 10, Options{NoFollow: true})
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("ReadFileWith NoFollow of a link: %v, want ErrNotRegular (a symbolic link)", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadFile of a missing file: %v, want ErrNotExist", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{16 << 20: "16 MiB", 4 << 10: "4 KiB", 1 << 30: "1 GiB", 100: "100 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
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
