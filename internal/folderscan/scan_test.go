package folderscan

import (
	"fmt"
	"io/fs"
	"os"
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
