package gitdb

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefUpdatesLooseAndPacked: single updates write loose ref files, bulk
// ones rewrite packed-refs and leave no stale loose file behind.
func TestRefUpdatesLooseAndPacked(t *testing.T) {
	dir := t.TempDir()
	a := HashObject(BlobObject, []byte("a"))
	b := HashObject(BlobObject, []byte("b"))
	if err := ApplyRefUpdates(dir, []RefUpdate{{Name: "refs/heads/skills/x", New: a}}); err != nil {
		t.Fatal(err)
	}
	var bulk []RefUpdate
	for i := 0; i <= BulkRefThreshold; i++ {
		bulk = append(bulk, RefUpdate{Name: "refs/heads/skills/bulk-" + string(rune('a'+i%26)) + string(rune('a'+i/26)), New: b})
	}
	bulk = append(bulk, RefUpdate{Name: "refs/heads/skills/x", Old: a, New: b})
	if err := ApplyRefUpdates(dir, bulk); err != nil {
		t.Fatal(err)
	}
	refs, err := ReadRefs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if refs["refs/heads/skills/x"] != b || len(refs) != len(bulk) {
		t.Fatalf("refs = %d, x = %s", len(refs), refs["refs/heads/skills/x"])
	}
	if _, err := os.Stat(filepath.Join(dir, "refs", "heads", "skills", "x")); !os.IsNotExist(err) {
		t.Error("bulk update left a stale loose ref that shadows packed-refs")
	}
	// A stale expectation is refused and changes nothing.
	if err := ApplyRefUpdates(dir, []RefUpdate{{Name: "refs/heads/skills/x", Old: a, New: a}}); err == nil {
		t.Fatal("update with a stale old value succeeded")
	}
	// Delete a packed ref.
	if err := ApplyRefUpdates(dir, []RefUpdate{{Name: "refs/heads/skills/x", Old: b}}); err != nil {
		t.Fatal(err)
	}
	refs, _ = ReadRefs(dir)
	if _, ok := refs["refs/heads/skills/x"]; ok {
		t.Error("deleted ref still there")
	}
	// Leftover temporary files from a crash are not refs.
	os.WriteFile(filepath.Join(dir, "refs", "heads", "skills", ".tmp-y-123"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "refs", "heads", "skills", "z.lock"), nil, 0o644)
	if _, err := ReadRefs(dir); err != nil {
		t.Fatalf("temporary files broke ref reading: %v", err)
	}
}

// TestRefsMatchGit: refs written here read back through git, and refs git
// writes (loose and packed) read back here; a corrupt ref file is a
// *CorruptRefError.
func TestRefsMatchGit(t *testing.T) {
	dir := repoWithHistory(t)
	head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	first := strings.TrimSpace(gitRun(t, dir, "rev-list", "--max-parents=0", "HEAD"))
	h, _ := parseID(head)
	f, _ := parseID(first)
	gitRun(t, dir, "update-ref", "refs/tags/packed", first)
	gitRun(t, dir, "pack-refs", "--all")
	if err := ApplyRefUpdates(dir, []RefUpdate{{Name: "refs/heads/skills/x", New: f}}); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitRun(t, dir, "rev-parse", "refs/heads/skills/x")); got != first {
		t.Fatalf("git reads refs/heads/skills/x as %s, want %s", got, first)
	}
	refs, err := ReadRefs(dir)
	if err != nil {
		t.Fatal(err)
	}
	branch := strings.TrimSpace(gitRun(t, dir, "symbolic-ref", "HEAD"))
	if refs["refs/tags/packed"] != f || refs[branch] != h {
		t.Fatalf("refs = %v", refs)
	}
	if err := PackAllRefs(dir); err != nil {
		t.Fatal(err)
	}
	if got := gitRun(t, dir, "for-each-ref", "--format=%(objectname) %(refname)"); !strings.Contains(got, first+" refs/heads/skills/x\n") {
		t.Fatalf("after PackAllRefs git lists\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "refs", "heads", "skills", "x")); !os.IsNotExist(err) {
		t.Fatal("PackAllRefs left the loose ref file")
	}
	os.WriteFile(filepath.Join(dir, "refs", "heads", "broken"), []byte("not an id\n"), 0o644)
	var ce *CorruptRefError
	if _, err := ReadRefs(dir); !errors.As(err, &ce) || ce.Content != "not an id" {
		t.Fatalf("corrupt ref: %v", err)
	}
	var reported []string
	refs, err = ReadRefsReport(dir, func(e *CorruptRefError) { reported = append(reported, e.Path) })
	if err != nil || len(reported) != 1 || refs["refs/heads/skills/x"] != f {
		t.Fatalf("report: %v %v %v", err, reported, refs)
	}
}
