package store

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// catFileAll returns every object of the repository at dir as real git
// reads it.
func catFileAll(t *testing.T, dir string) map[Hash]gitdb.Object {
	t.Helper()
	out := gitRun(t, dir, "cat-file", "--batch-all-objects", "--batch")
	objs := map[Hash]gitdb.Object{}
	rd := bufio.NewReader(strings.NewReader(out))
	for {
		header, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		f := strings.Fields(header)
		h, ok := ParseHash(f[0])
		size, err := strconv.Atoi(f[2])
		typ, err2 := gitdb.ParseObjectType(f[1])
		if !ok || err != nil || err2 != nil {
			t.Fatalf("bad cat-file header %q", header)
		}
		data := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(rd, data); err != nil {
			t.Fatal(err)
		}
		objs[h] = gitdb.Object{Type: typ, Data: data[:size]}
	}
	return objs
}

// storeWithHistory makes a store holding 40 versions of a skill whose
// files change a little each time, so a repack stores most of them as
// deltas.
func storeWithHistory(t *testing.T) *Store {
	t.Helper()
	s := newSyncStore(t)
	err := s.Update(context.Background(), func(tx *Tx) error {
		for v := range 40 {
			md := skillMD("hist", strings.Repeat("a line that stays the same\n", 30), fmt.Sprintf("version %d", v))
			files := []File{
				{Path: "SKILL.md", Mode: skillfs.Regular, Data: []byte(md)},
				{Path: "scripts/run.py", Mode: skillfs.Executable, Data: []byte(strings.Repeat("print(1)\n", 50+v))},
				{Path: "empty.txt", Mode: skillfs.Regular, Data: []byte{}},
			}
			tree, err := tx.WriteTree(files)
			if err != nil {
				return err
			}
			if _, err := tx.CommitVersion("hist", tree, VersionInfo{Reason: fmt.Sprintf("edit %d", v)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPackReaderDamagedPack: bytes damaged inside a pack give errors, never
// a panic. (Like git, the reader does not hash what it reads: a damaged
// entry header can still pass for another object; git fsck and verify are
// what find those.)
func TestPackReaderDamagedPack(t *testing.T) {
	s := storeWithHistory(t)
	gitRun(t, s.Dir(), "repack", "-a", "-d", "-q", "--depth=50", "--window=50")
	want := catFileAll(t, s.Dir())
	packs, _ := filepath.Glob(filepath.Join(s.Dir(), "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	data, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 12; i < len(data)-20; i += 97 {
		data[i] ^= 0x5a
	}
	os.Chmod(packs[0], 0o644)
	if err := os.WriteFile(packs[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	failed := 0
	err = s.View(context.Background(), func(r *Reader) error {
		for h := range want {
			if _, ok, err := r.packed(h); !ok {
				return fmt.Errorf("%s not found", h)
			} else if err != nil {
				failed++
			}
			if _, err := r.object(h); err != nil && !strings.Contains(err.Error(), h.String()) {
				return fmt.Errorf("the error does not name the object: %v", err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if failed == 0 {
		t.Fatal("no read failed in a damaged pack")
	}
}
