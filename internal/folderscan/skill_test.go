package folderscan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// TestScanSkillMatchesScan reads a plugin folder's layout through PluginFS
// and scans each skill with ScanSkill (which reuses the layout's lstats),
// with a cold and a warm stat cache: each scan must equal a plain Scan,
// leave out what skillfs.Ignored names, and list an oversized file without
// reading it until LoadData, which skips it too.
func TestScanSkillMatchesScan(t *testing.T) {
	root := t.TempDir()
	limits := skillfs.Limits{MaxFileSize: 64, MaxFiles: 100}
	for _, name := range []string{"alpha", "beta"} {
		dir := filepath.Join(root, "skills", name)
		writeFile(t, filepath.Join(dir, "SKILL.md"), skillMD(name, "short"))
		writeFile(t, filepath.Join(dir, "refs", "guide.md"), "guide of "+name+"\n")
		writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("x", 65))
		writeFile(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
		writeFile(t, filepath.Join(dir, "node_modules", "m", "index.js"), "x\n")
		writeFile(t, filepath.Join(dir, "refs", "guide.md~"), "backup\n")
		writeFile(t, filepath.Join(dir, ".DS_Store"), "mac\n")
	}
	time.Sleep(RacyWindow + 10*time.Millisecond)
	cachePath := filepath.Join(t.TempDir(), "statcache")
	for _, pass := range []string{"cold", "warm"} {
		cache := LoadStatCache(cachePath)
		fsys := NewPluginFS(localFS(t, root), root, cache)
		layout, err := pluginfmt.ReadLayout(fsys, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(layout.Plugins) != 1 || len(layout.Plugins[0].Skills) != 2 {
			t.Fatalf("%s: layout %v", pass, summary(layout))
		}
		for _, sk := range layout.Plugins[0].Skills {
			dir := filepath.Join(root, filepath.FromSlash(sk.Path))
			got, err := fsys.ScanSkill(dir, limits)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Scan(dir, limits, nil)
			if err != nil {
				t.Fatal(err)
			}
			if summarizeFiles(got) != summarizeFiles(want) {
				t.Fatalf("%s, %s: ScanSkill\n%s\nScan\n%s", pass, sk.Name, summarizeFiles(got), summarizeFiles(want))
			}
			if paths := pathsOf(got); paths != "SKILL.md big.txt refs/guide.md" {
				t.Errorf("%s, %s: scanned %q", pass, sk.Name, paths)
			}
			big := got[1]
			if big.Size != 65 || big.Data != nil || !big.ID.IsZero() {
				t.Errorf("%s, %s: the oversized file was read: %+v", pass, sk.Name, big)
			}
			if err := LoadData(dir, got, limits); err != nil {
				t.Fatal(err)
			}
			for _, f := range got {
				if f.Path == "big.txt" {
					if f.Data != nil {
						t.Errorf("LoadData read the oversized file")
					}
					continue
				}
				data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
				if err != nil {
					t.Fatal(err)
				}
				if string(f.Data) != string(data) || f.ID != skillfs.BlobID(data) {
					t.Errorf("%s, %s: %s loaded as %q %s", pass, sk.Name, f.Path, f.Data, f.ID)
				}
			}
		}
		if err := cache.Save(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestScanStopsAfterMaxFiles: a folder of more files than the limit is
// listed up to one past it, so the safety check can tell it is too many.
func TestScanStopsAfterMaxFiles(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), "x\n")
	}
	files, err := Scan(dir, skillfs.Limits{MaxFileSize: 1 << 10, MaxFiles: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 6 {
		t.Fatalf("%d files listed, want 6: %s", len(files), pathsOf(files))
	}
}

func pathsOf(files []skillfs.File) string {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	return strings.Join(paths, " ")
}
