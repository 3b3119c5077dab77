package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/lockfile"
)

// importBatch imports n new skills named prefix-NN in one transaction,
// which writes one pack (more than gitdb.PackThreshold new objects).
func importBatch(t *testing.T, s *Store, prefix string, n int) {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		writeSkill(t, root, fmt.Sprintf("%s-%02d", prefix, i), "A batch skill.", map[string]string{"notes.md": strings.Repeat(prefix+" notes\n", 40+i)})
	}
	res, err := s.Import(context.Background(), root, defaultAdd())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Dir, r.Err)
		}
	}
}

func storePacks(s *Store) int {
	packs, _ := filepath.Glob(filepath.Join(s.Dir(), "objects", "pack", "*.pack"))
	return len(packs)
}

// reopenWith sets git config key to value in s's repository and opens it
// again (a store reads its gc settings once).
func reopenWith(t *testing.T, s *Store, key, value string) *Store {
	t.Helper()
	gitCmd(t, s.Dir(), "config", key, value)
	s2, err := Open(context.Background(), s.Dir(), Options{Actor: Signature{Name: "Tester", Email: "tester@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	return s2
}

// TestAutoPackPastThePackLimit: with gc.autoPackLimit 2, the write that
// leaves a third pack merges them (packs of one size: into one), and the
// store reads as before; git fsck --full agrees. With gc.auto 0 nothing
// is merged, and while a gc holds its lock the writes leave their packs
// to it.
func TestAutoPackPastThePackLimit(t *testing.T) {
	ctx := context.Background()
	s := reopenWith(t, newTestStore(t), "gc.autoPackLimit", "2")
	for k, want := range []int{1, 2, 1} {
		importBatch(t, s, fmt.Sprintf("b%d", k), 30)
		if got := storePacks(s); got != want {
			t.Fatalf("after import %d: %d packs, want %d", k+1, got, want)
		}
	}
	gitCmd(t, s.Dir(), "fsck", "--full", "--strict", "--no-dangling")
	list, err := s.List(ctx, false)
	if err != nil || len(list) != 90 {
		t.Fatalf("list after the auto pack: %d skills, %v", len(list), err)
	}
	if data, err := s.Cat(ctx, "b0-07", "notes.md"); err != nil || !strings.HasPrefix(string(data), "b0 notes\n") {
		t.Fatalf("b0-07's notes after the auto pack: %q, %v", data, err)
	}

	// A gc at work: its lock is held, the writes keep their packs.
	gl, err := lockfile.Acquire(ctx, filepath.Join(s.Dir(), metaDir, "gc.lock"), lockfile.Exclusive, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	importBatch(t, s, "c0", 30)
	importBatch(t, s, "c1", 30)
	if got := storePacks(s); got != 3 {
		t.Errorf("writes beside a gc: %d packs, want 3 (no auto pack)", got)
	}
	gl.Release()

	off := reopenWith(t, s, "gc.auto", "0")
	importBatch(t, off, "d0", 30)
	if got := storePacks(off); got != 4 {
		t.Errorf("gc.auto 0: %d packs, want 4 (no auto pack)", got)
	}
	gitCmd(t, s.Dir(), "fsck", "--full", "--strict", "--no-dangling")
}
