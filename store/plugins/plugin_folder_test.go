package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
)

// TestFolderSnapshotMatchesGit checks that a folder source's skill gets the
// tree id the git CLI gives the same folder, and that a symlink is listed
// (for the safety check to refuse), never followed.
func TestFolderSnapshotMatchesGit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skill")
	storetest.WriteFixture(t, dir, `-- SKILL.md --
`+storetest.Skill+`-- scripts/run.sh --
#!/bin/sh
-- scripts/lib/a.py --
a
-- references/b.md --
b
-- a-b/x --
sorts before a/
-- a/y --
y
`)
	if err := os.Chmod(filepath.Join(dir, "scripts", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := folderscan.Scan(dir, skillfs.DefaultLimits, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := hashFolder(files)
	storetest.Git(t, dir, "init", "-q")
	storetest.Git(t, dir, "add", "-A")
	want := strings.TrimSpace(storetest.Git(t, dir, "write-tree"))
	if got.String() != want {
		t.Errorf("tree of folderFiles = %s, git write-tree = %s", got, want)
	}

	if err := os.Symlink("references/b.md", filepath.Join(dir, "references", "link")); err != nil {
		t.Fatal(err)
	}
	files, err = folderscan.Scan(dir, skillfs.DefaultLimits, nil)
	if err != nil {
		t.Fatal(err)
	}
	link := store.FileMap(files)["references/link"]
	if link.Mode != skillfs.Symlink || string(link.Data) != "references/b.md" {
		t.Errorf("symlink read as %+v", link)
	}
	if _, ok := store.FileMap(files)[".git/HEAD"]; ok {
		t.Error(".git was read into the snapshot")
	}
	if h := hashFolder(files); h == got || h.IsZero() {
		t.Errorf("a folder with a symlink hashed as %s (without it: %s)", h, got)
	}
}
