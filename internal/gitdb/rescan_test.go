package gitdb

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// TestReadAfterAnotherProcessPacks opens a DB on a repository of loose
// objects, reads one (the DB lists objects/ and its packs), then has real
// git pack every object and delete the loose files, as gc does beside a
// running sync. Every object must still read, and a missing one must
// still be ErrObjectNotFound.
func TestReadAfterAnotherProcessPacks(t *testing.T) {
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "--bare")
	var b Buffer
	var ids []ID
	for i := range 5 { // below PackThreshold: written loose
		ids = append(ids, b.Add(BlobObject, []byte(fmt.Sprintf("blob %d\n", i))))
	}
	db := Open(dir)
	defer db.Close()
	if err := b.Flush(dir, db.Has); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Read(ids[0]); err != nil {
		t.Fatal(err)
	}
	// Refs keep the blobs reachable, so gc packs them rather than prune.
	for i, id := range ids {
		gitRun(t, dir, "update-ref", fmt.Sprintf("refs/tags/b%d", i), id.String())
	}
	gitRun(t, dir, "gc", "-q", "--prune=now")
	if loose, _ := filepath.Glob(filepath.Join(dir, "objects", "??", "*")); len(loose) != 0 {
		t.Fatalf("git gc left %d loose objects", len(loose))
	}
	for i, id := range ids {
		o, err := db.Read(id)
		if err != nil || string(o.Data) != fmt.Sprintf("blob %d\n", i) {
			t.Fatalf("read %s after git gc packed it: %v %q", id, err, o.Data)
		}
		if n, err := db.Size(id); err != nil || n != int64(len(o.Data)) {
			t.Fatalf("size of %s after git gc: %d, %v", id, n, err)
		}
	}
	missing := HashObject(BlobObject, []byte("missing"))
	if _, err := db.Read(missing); !errors.Is(err, ErrObjectNotFound) {
		t.Fatalf("missing object: %v, want ErrObjectNotFound", err)
	}
}
