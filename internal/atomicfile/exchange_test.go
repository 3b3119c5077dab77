package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mkdirWith(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readSkill(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExchangeSwapsDirectories(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	mkdirWith(t, a, "old")
	mkdirWith(t, b, "new")
	err := Exchange(a, b)
	if errors.Is(err, ErrExchangeUnsupported) {
		t.Skip("this filesystem cannot exchange atomically")
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := readSkill(t, a); got != "new" {
		t.Errorf("a holds %q after the exchange, want new", got)
	}
	if got := readSkill(t, b); got != "old" {
		t.Errorf("b holds %q after the exchange, want old", got)
	}
	if err := Exchange(a, filepath.Join(root, "missing")); err == nil {
		t.Error("exchange with a missing name succeeded")
	}
}

func TestRenameNoReplace(t *testing.T) {
	root := t.TempDir()
	from, to := filepath.Join(root, "stage"), filepath.Join(root, "skill")
	mkdirWith(t, from, "staged")
	mkdirWith(t, to, "someone else's")
	if err := RenameNoReplace(from, to); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("rename over an existing folder: err = %v, want fs.ErrExist", err)
	}
	if got := readSkill(t, to); got != "someone else's" {
		t.Fatalf("the existing folder was replaced: %q", got)
	}
	if err := os.RemoveAll(to); err != nil {
		t.Fatal(err)
	}
	if err := RenameNoReplace(from, to); err != nil {
		t.Fatal(err)
	}
	if got := readSkill(t, to); got != "staged" {
		t.Fatalf("renamed folder holds %q", got)
	}
	if err := SyncFS(root); err != nil {
		t.Fatal(err)
	}
}

// RenameDir puts a folder where there is none or an empty one, and
// refuses to replace a folder that holds something or a file, leaving it
// as it was.
func TestRenameDir(t *testing.T) {
	root := t.TempDir()
	from, to := filepath.Join(root, "stage"), filepath.Join(root, "skill")
	mkdirWith(t, from, "first")
	if err := RenameDir(from, to); err != nil {
		t.Fatalf("rename to a missing folder: %v", err)
	}
	if got := readSkill(t, to); got != "first" {
		t.Fatalf("renamed folder holds %q", got)
	}
	mkdirWith(t, from, "second")
	if err := RenameDir(from, to); err == nil {
		t.Fatal("rename over a folder that holds a file succeeded")
	}
	if got := readSkill(t, to); got != "first" {
		t.Fatalf("the folder in the way changed: %q", got)
	}
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := RenameDir(from, empty); err != nil {
		t.Fatalf("rename over an empty folder: %v", err)
	}
	if got := readSkill(t, empty); got != "second" {
		t.Fatalf("renamed folder holds %q", got)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RenameDir(empty, file); err == nil {
		t.Fatal("rename over a file succeeded")
	}
	if data, err := os.ReadFile(file); err != nil || string(data) != "a file" {
		t.Fatalf("the file in the way changed: %q, %v", data, err)
	}
}

// Paths longer than Windows's 260-character limit work: the calls made
// to the system directly (MoveFileEx) lengthen them as the os package
// does for its own.
func TestLongPaths(t *testing.T) {
	deep := t.TempDir()
	for len(deep) < 300 {
		deep = filepath.Join(deep, strings.Repeat("d", 40))
	}
	from, to := filepath.Join(deep, "stage"), filepath.Join(deep, "skill")
	mkdirWith(t, from, "staged")
	if err := RenameNoReplace(from, to); err != nil {
		t.Fatal(err)
	}
	mkdirWith(t, from, "again")
	if err := RenameNoReplace(from, to); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("rename over an existing folder: %v, want fs.ErrExist", err)
	}
	if err := WriteFile(filepath.Join(to, "SKILL.md"), []byte("rewritten"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readSkill(t, to); got != "rewritten" {
		t.Fatalf("file holds %q", got)
	}
	if err := os.RemoveAll(to); err != nil {
		t.Fatal(err)
	}
	if err := RenameDir(from, to); err != nil {
		t.Fatal(err)
	}
}
