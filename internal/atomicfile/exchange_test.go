package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
