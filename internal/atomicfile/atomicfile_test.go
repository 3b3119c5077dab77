package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWriteFileReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ref")
	for _, content := range []string{"first\n", "second, longer content\n", "3\n"} {
		if err := WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Fatalf("content = %q, want %q", got, content)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	want := os.FileMode(0o644)
	if runtime.GOOS == "windows" {
		want = 0o666 // Windows keeps only a read-only flag, off here
	}
	if fi.Mode().Perm() != want {
		t.Errorf("mode = %v, want %v", fi.Mode().Perm(), want)
	}
}

func TestWriteFileMissingDir(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "no", "such", "file"), []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), filepath.Join("no", "such", "file")) {
		t.Fatalf("error = %v, want one naming the path", err)
	}
}
