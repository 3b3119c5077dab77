package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// TestFolderFilesMatchGit checks that a folder snapshot has the tree id the
// git CLI gives the same folder, and that a symlink is reported, not followed.
func TestFolderFilesMatchGit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skill")
	writeFixture(t, dir, `-- SKILL.md --
`+skill+`-- scripts/run.sh --
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
	files, err := folderFiles(localFS(t, dir), ".")
	if err != nil {
		t.Fatal(err)
	}
	got, err := TreeHash(files)
	if err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "add", "-A")
	want := strings.TrimSpace(gitRun(t, dir, "write-tree"))
	if got.String() != want {
		t.Errorf("tree of folderFiles = %s, git write-tree = %s", got, want)
	}

	if err := os.Symlink("references/b.md", filepath.Join(dir, "references", "link")); err != nil {
		t.Fatal(err)
	}
	files, err = folderFiles(localFS(t, filepath.Dir(dir)), "skill")
	if err != nil {
		t.Fatal(err)
	}
	link := FileMap(files)["references/link"]
	if link.Mode != filemode.Symlink || string(link.Data) != "references/b.md" {
		t.Errorf("symlink read as %+v", link)
	}
	if _, ok := FileMap(files)[".git/HEAD"]; ok {
		t.Error(".git was read into the snapshot")
	}
}
