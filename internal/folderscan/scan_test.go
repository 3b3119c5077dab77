package folderscan

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// TestScanFolderCache changes a scanned folder in every way a listing
// can change and checks that a scan through a warm stat cache (saved and
// loaded again in between) always equals a scan without one.
func TestScanFolderCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skill")
	writeFile(t, filepath.Join(dir, "SKILL.md"), skillMD("skill", "body"))
	writeFile(t, filepath.Join(dir, "scripts", "run.py"), "print(1)\n")
	writeFile(t, filepath.Join(dir, "refs", "a b \"quoted\"\n.md"), "odd name\n")
	writeFile(t, filepath.Join(dir, "refs", "ünï.md"), "unicode\n")
	cachePath := filepath.Join(t.TempDir(), "statcache")

	check := func(step string) {
		t.Helper()
		cache := LoadStatCache(cachePath)
		got, err := Scan(dir, skillfs.DefaultLimits, cache)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		want, err := Scan(dir, skillfs.DefaultLimits, nil)
		if err != nil {
			t.Fatal(err)
		}
		if summarizeFiles(got) != summarizeFiles(want) {
			t.Fatalf("%s: through the cache\n%s\nwithout\n%s", step, summarizeFiles(got), summarizeFiles(want))
		}
		if err := cache.Save(); err != nil {
			t.Fatal(err)
		}
	}
	// Folders changed within the racy window are not cached; wait once so
	// the listings are, then each change below must be seen.
	time.Sleep(RacyWindow + 10*time.Millisecond)
	check("first scan")
	cache := LoadStatCache(cachePath)
	st := statOf(t, filepath.Join(dir, "refs"))
	if entries, ok := cache.LookupDir(filepath.Join(dir, "refs"), st); !ok || len(entries) != 2 {
		t.Fatalf("the folder listing was not kept: %v %v", entries, ok)
	}
	check("unchanged")

	writeFile(t, filepath.Join(dir, "scripts", "new.sh"), "echo\n")
	check("file added")
	if err := os.Remove(filepath.Join(dir, "scripts", "run.py")); err != nil {
		t.Fatal(err)
	}
	check("file removed")
	if err := os.Rename(filepath.Join(dir, "refs", "ünï.md"), filepath.Join(dir, "refs", "renamed.md")); err != nil {
		t.Fatal(err)
	}
	check("file renamed")
	if err := os.RemoveAll(filepath.Join(dir, "scripts")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("refs", filepath.Join(dir, "scripts")); err != nil {
		t.Fatal(err)
	}
	check("folder replaced by a symlink")
	writeFile(t, filepath.Join(dir, "deep", "er", "x.md"), "x\n")
	check("folders added")
	time.Sleep(RacyWindow + 10*time.Millisecond)
	check("settled")
	writeFile(t, filepath.Join(dir, "deep", "er", "y.md"), "y\n")
	check("file added to a cached folder")
}

func statOf(t *testing.T, path string) fs.FileInfo {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func summarizeFiles(files []skillfs.File) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%q %o %d %s\n", f.Path, uint32(f.Mode), f.Size, f.ID)
	}
	return b.String()
}

// skillMD is a SKILL.md with the given body lines.
func skillMD(name string, lines ...string) string {
	return "---\nname: " + name + "\ndescription: the " + name + " skill\n---\n" + strings.Join(lines, "\n") + "\n"
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestScanRecordsAFolderAsGitDoes: the files Scan reads make the tree id
// `git write-tree` gives the same folder: a file is executable when its
// owner's execute bit is set (a group or other bit alone is not), a
// symlink is a link with its id, and ignored files are left out.
func TestScanRecordsAFolderAsGitDoes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	modes := map[string]os.FileMode{"SKILL.md": 0o644, "run.sh": 0o755, "group-exec.sh": 0o654, "owner-exec.sh": 0o744, "other-exec.sh": 0o645}
	for name, mode := range modes {
		writeFile(t, filepath.Join(dir, name), name+"\n")
		if err := os.Chmod(filepath.Join(dir, name), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("run.sh", filepath.Join(dir, "link")); err != nil {
		t.Skip("symlink:", err)
	}
	files, err := Scan(dir, skillfs.DefaultLimits, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "SKILL.md~"), "an editor's backup, ignored by Scan\n")
	got, err := skillfs.TreeID(files)
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A", "--", ".", ":!SKILL.md~")
	if want := git("write-tree"); got.String() != want {
		t.Errorf("tree id of the scan = %s, git write-tree = %s\n%s", got, want, git("ls-files", "-s"))
	}
	for _, f := range files {
		if f.Mode == skillfs.Symlink && f.ID != skillfs.BlobID([]byte("run.sh")) {
			t.Errorf("symlink %s has id %s, want the blob id of its target", f.Path, f.ID)
		}
	}
}
