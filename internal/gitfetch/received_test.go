package gitfetch

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// TestStoreReceived: a whole fetched pack goes into the repository as it
// came, with the index its parse built: git reads every fetched object
// from it and git fsck --strict accepts it, no loose object is written,
// and storing it again (another plugin of the same source) writes nothing
// more. A released pack is not stored: the caller queues the objects.
func TestStoreReceived(t *testing.T) {
	up, _, second := upstreamRepo(t)
	dir := filepath.Join(t.TempDir(), "store")
	repo, err := git.PlainInit(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Fetch(context.Background(), repo.Storer, up, "", skillfs.ZeroID, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.ReceivedIn(dir) {
		t.Fatal("ReceivedIn before StoreReceived")
	}
	ok, err := f.StoreReceived(dir)
	if err != nil || !ok {
		t.Fatalf("StoreReceived = %v, %v; want the pack stored", ok, err)
	}
	if !f.ReceivedIn(dir) {
		t.Error("ReceivedIn after StoreReceived")
	}
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.pack"))
	idxs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.idx"))
	if len(packs) != 1 || len(idxs) != 1 {
		t.Fatalf("packs %v, indexes %v: want one of each", packs, idxs)
	}
	if loose, _ := filepath.Glob(filepath.Join(dir, "objects", "??", "*")); len(loose) != 0 {
		t.Errorf("loose objects written: %v", loose)
	}
	if got := strings.TrimSpace(gitRun(t, dir, "cat-file", "-t", second)); got != "commit" {
		t.Errorf("git cat-file -t %s = %q", second, got)
	}
	gitRun(t, dir, "update-ref", "refs/heads/main", second)
	gitRun(t, dir, "fsck", "--strict", "--no-dangling")
	gitRun(t, dir, "cat-file", "-p", second+":skills/a/SKILL.md")

	info, err := os.Stat(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := f.StoreReceived(dir); err != nil || !ok {
		t.Errorf("StoreReceived again = %v, %v", ok, err)
	}
	if again, err := os.Stat(packs[0]); err != nil || again.ModTime() != info.ModTime() {
		t.Errorf("the pack was written again: %v", err)
	}

	other := filepath.Join(t.TempDir(), "other")
	repo2, err := git.PlainInit(other, true)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Fetch(context.Background(), repo2.Storer, up, "", skillfs.ZeroID, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.Release()
	if ok, err := g.StoreReceived(other); ok || err != nil {
		t.Errorf("StoreReceived after Release = %v, %v; want nothing stored", ok, err)
	}
	n := 0
	err = g.NewObjects(func(_ gitdb.ObjectType, _ []byte) { n++ })
	if err != nil || n == 0 {
		t.Errorf("NewObjects after Release: %d objects, %v", n, err)
	}
}

// TestWholePackReadInPlace: a fetched pack whole in itself is indexed
// without keeping its objects in memory; the fetch reads them from the
// kept pack (the tree of the fetched commit, a file in it), the store
// takes the pack as it came, and the objects stay readable after.
func TestWholePackReadInPlace(t *testing.T) {
	up, _, second := upstreamRepo(t)
	gitDir := filepath.Join(t.TempDir(), "store")
	repo, err := git.PlainInit(gitDir, true)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Fetch(context.Background(), repo.Storer, up, "", skillfs.ZeroID, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Commit.String() != second {
		t.Fatalf("fetched %s, want %s", f.Commit, second)
	}
	if n := len(f.objects.objs.Objects); n != 0 || f.objects.pack == nil {
		t.Fatalf("%d objects held in memory, pack kept in place: %v", n, f.objects.pack != nil)
	}
	if len(f.objects.packTrees) == 0 || len(f.objects.packCommits) != 2 {
		t.Errorf("the index noted %d trees and %d commits, want some and 2", len(f.objects.packTrees), len(f.objects.packCommits))
	}
	read := func() {
		t.Helper()
		fsys, err := f.FS()
		if err != nil {
			t.Fatal(err)
		}
		if data, err := fs.ReadFile(fsys, "skills/a/SKILL.md"); err != nil || !strings.HasSuffix(string(data), "more\n") {
			t.Fatalf("read a fetched file: %q, %v", data, err)
		}
	}
	read()
	if ok, err := f.StoreReceived(gitDir); !ok || err != nil {
		t.Fatalf("StoreReceived = %v, %v", ok, err)
	}
	f.Release()
	read()
}
