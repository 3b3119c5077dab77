package folderscan

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// TestStatCacheFileRoundTrip: folder listings survive a save and a load,
// whatever their names, and lines the cache cannot parse are skipped.
func TestStatCacheFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	names := []string{"plain", "with space", "quote\"d", "back\\slash", "new\nline", "ünï"}
	for _, n := range names {
		writeFile(t, filepath.Join(dir, n), "x")
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "statcache")
	c := LoadStatCache(path)
	st := statOf(t, dir)
	c.RecordDir(dir, st, list, time.Now().Add(time.Hour)) // as if listed long after the last change
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	os.WriteFile(path, append(data, "D garbage\nD 1 2 3 4 5 \"x\" z\"bad type\"\nnot a line\n"...), 0o644)
	entries, ok := LoadStatCache(path).LookupDir(dir, st)
	if !ok {
		t.Fatal("listing lost in the round trip")
	}
	var want []DirName
	for _, e := range list {
		want = append(want, DirName{Name: e.Name(), Type: e.Type()})
	}
	if !reflect.DeepEqual(entries, want) {
		t.Fatalf("got %v, want %v", entries, want)
	}
	// A listing taken at the moment the folder changed is not kept (the
	// folder's own mtime as the time of listing, so the check does not
	// depend on how fast this machine runs).
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	c = LoadStatCache(filepath.Join(t.TempDir(), "statcache"))
	c.RecordDir(dir, st, list, info.ModTime())
	if _, ok := c.LookupDir(dir, st); ok {
		t.Fatal("a racy listing was kept")
	}
}

// TestStatCacheFiles: a file's blob id is answered while its stat data is
// unchanged, survives a save and a load, and is not kept when the file
// changed within the racy window.
func TestStatCacheFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "SKILL.md")
	writeFile(t, p, "one")
	st := statOf(t, p)
	id := skillfs.BlobID([]byte("one"))
	path := filepath.Join(t.TempDir(), "statcache")
	c := LoadStatCache(path)
	c.Record(p, st, id, time.Now().Add(time.Hour))
	if got, ok := c.Lookup(p, st); !ok || got != id {
		t.Fatalf("lookup: %s %v", got, ok)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if got, ok := LoadStatCache(path).Lookup(p, st); !ok || got != id {
		t.Fatalf("lookup after a load: %s %v", got, ok)
	}
	writeFile(t, p, "two, longer")
	if _, ok := LoadStatCache(path).Lookup(p, statOf(t, p)); ok {
		t.Fatal("a changed file was answered from the cache")
	}
	c = LoadStatCache(filepath.Join(t.TempDir(), "statcache"))
	changed, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	c.Record(p, statOf(t, p), id, changed.ModTime()) // read at the moment it changed

	if _, ok := c.Lookup(p, statOf(t, p)); ok {
		t.Fatal("a racy entry was kept")
	}
}
