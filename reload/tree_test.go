package reload

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// writeTree creates files under dir; a value starting with "->" is a symlink
// target, a key ending in "*" is an executable.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, "*") {
			name, mode = strings.TrimSuffix(name, "*"), 0o755
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
}

func gitWriteTree(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"write-tree"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		if args[0] == "write-tree" {
			return strings.TrimSpace(string(out))
		}
	}
	return ""
}

// TestTreeIDMatchesGit checks that tree IDs computed without a repository
// are the ones git computes for the same folder, including git's ordering
// of a directory "a" after "a.b" and "a-b".
func TestTreeIDMatchesGit(t *testing.T) {
	cases := map[string]map[string]string{
		"single":     {"SKILL.md": "---\nname: x\n---\nbody\n"},
		"empty file": {"SKILL.md": "", "empty": ""},
		"nested and sorted": {
			"SKILL.md": "x", "a.b": "1", "a-b": "2", "a/c": "3", "a/d/e": "4", "ab": "5", "A": "6",
		},
		"exec and symlink": {
			"SKILL.md": "x", "scripts/run.sh*": "#!/bin/sh\necho hi\n", "link": "->scripts/run.sh",
			"dangling": "->nowhere",
		},
	}
	for name, files := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, files)
			got, err := ReadTree(dir)
			if err != nil {
				t.Fatal(err)
			}
			if want := gitWriteTree(t, dir); got.ID.String() != want {
				t.Errorf("tree ID = %s, git write-tree = %s", got.ID, want)
			}
		})
	}
}

func TestReadDirSkipsIgnoredFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"SKILL.md": "x", ".SKILL.md.swp": "swap", "SKILL.md~": "backup", "4913": "",
		".#SKILL.md": "->user@host", "#SKILL.md#": "autosave", ".skillstore/exported.json": "{}",
		".DS_Store": "", "scripts/.run.sh.swp": "", "scripts/run.sh": "ok",
	})
	files, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if strings.Join(got, ",") != "SKILL.md,scripts/run.sh" {
		t.Errorf("files = %v, want SKILL.md and scripts/run.sh", got)
	}
}

func TestNewTreeRejectsBadPaths(t *testing.T) {
	for _, files := range [][]skillfs.File{
		{{Path: "../x"}},
		{{Path: "/abs"}},
		{{Path: "a//b"}},
		{{Path: ".git/config"}},
		{{Path: "a"}, {Path: "a"}},
		{{Path: "a"}, {Path: "a/b"}},
		{{Path: ""}},
	} {
		if _, err := NewTree(files); err == nil {
			t.Errorf("NewTree(%v) succeeded, want an error", files)
		}
	}
}

func TestReadDirRejectsFIFO(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"SKILL.md": "x"})
	if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
		t.Skip("mkfifo:", err)
	}
	_, err := ReadDir(dir)
	if err == nil || !strings.Contains(err.Error(), "pipe") {
		t.Errorf("ReadDir = %v, want an error naming the FIFO", err)
	}
}
