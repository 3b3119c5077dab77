package gitdb

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestBufferFlushGitReads flushes a few objects (written loose) and many
// (written as one pack) and checks that git reads every one and finds
// the repository sound, and that gitdb reads them back.
func TestBufferFlushGitReads(t *testing.T) {
	for _, n := range []int{3, PackThreshold} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			gitRun(t, dir, "init", "-q", "--bare")
			var b Buffer
			var ids []ID
			for i := range n {
				ids = append(ids, b.Add(BlobObject, []byte(fmt.Sprintf("blob %d\n", i))))
			}
			if again := b.Add(BlobObject, []byte("blob 0\n")); again != ids[0] {
				t.Fatal("the same content got another id")
			}
			if o, ok := b.Get(ids[1]); !ok || string(o.Data) != "blob 1\n" {
				t.Fatalf("Get: %v %q", ok, o.Data)
			}
			db := Open(dir)
			if err := b.Flush(dir, db.Has); err != nil {
				t.Fatal(err)
			}
			if _, ok := b.Get(ids[0]); ok {
				t.Fatal("the buffer was not emptied")
			}
			packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
			if wantPacks := n / PackThreshold; len(packs) != wantPacks {
				t.Fatalf("%d packs, want %d", len(packs), wantPacks)
			}
			gitRun(t, dir, "fsck", "--strict", "--no-dangling")
			db.Close()
			for i, id := range ids {
				if got := gitRun(t, dir, "cat-file", "-p", id.String()); got != fmt.Sprintf("blob %d\n", i) {
					t.Fatalf("git reads %s as %q", id, got)
				}
				o, err := db.Read(id)
				if err != nil || o.Type != BlobObject || string(o.Data) != fmt.Sprintf("blob %d\n", i) {
					t.Fatalf("read %s: %v %s %q", id, err, o.Type, o.Data)
				}
				if !db.Has(id) {
					t.Fatalf("Has(%s) = false", id)
				}
			}
		})
	}
}

// TestReadLooseGitObjects reads the loose objects git wrote and checks a
// damaged header is an error naming the object.
func TestReadLooseGitObjects(t *testing.T) {
	dir := repoWithHistory(t)
	explode(t, dir)
	want := catFileAll(t, dir)
	if len(want) < 100 {
		t.Fatalf("only %d objects", len(want))
	}
	for h, w := range want {
		o, err := ReadLoose(dir, h)
		if err != nil || o.Type != w.Type || !bytes.Equal(o.Data, w.Data) {
			t.Fatalf("%s: %v, %s of %d bytes, want %s of %d", h, err, o.Type, len(o.Data), w.Type, len(w.Data))
		}
		if n, err := looseSize(dir, h); err != nil || n != int64(len(w.Data)) {
			t.Fatalf("%s: size %d, %v", h, n, err)
		}
	}
	missing := HashObject(BlobObject, []byte("missing"))
	if _, err := ReadLoose(dir, missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing object: %v", err)
	}
	for name, content := range map[string]string{"type": "blub 3\x00abc", "size": "blob 4\x00abc", "no header": "blob 3"} {
		h := HashObject(BlobObject, []byte(name))
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write([]byte(content))
		zw.Close()
		writeFile(t, LoosePath(dir, h), z.String())
		if _, err := ReadLoose(dir, h); err == nil || !strings.Contains(err.Error(), h.String()) {
			t.Errorf("bad %s: %v", name, err)
		}
	}
}
