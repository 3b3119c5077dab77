package gitdb

import (
	"compress/zlib"
	"fmt"
	"strings"
	"testing"
)

// benchObjects are 1,000 blobs shaped like skill files (4 KB of text).
func benchObjects() []PackObject {
	objs := make([]PackObject, 1000)
	for i := range objs {
		data := []byte(strings.Repeat(fmt.Sprintf("Reference line %d: details the agent reads when it needs them.\n", i), 64))
		objs[i] = PackObject{ID: HashObject(BlobObject, data), Type: BlobObject, Data: data}
	}
	return objs
}

// BenchmarkReadLoose1000 reads 1,000 loose objects (what cat, checkout and
// export read in a store that gc has not packed yet); each read inflates
// and, since objects are re-hashed on read, hashes the object.
func BenchmarkReadLoose1000(b *testing.B) {
	dir := b.TempDir()
	objs := benchObjects()
	for _, o := range objs {
		if _, err := WriteLoose(dir, o.ID, o.Type, o.Data); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		db := Open(dir)
		for _, o := range objs {
			if _, err := db.Read(o.ID); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkReadPacked1000 reads the same objects from one pack.
func BenchmarkReadPacked1000(b *testing.B) {
	dir := b.TempDir()
	objs := benchObjects()
	if _, err := WritePack(dir, objs, zlib.BestSpeed); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		db := Open(dir)
		for _, o := range objs {
			if _, err := db.Read(o.ID); err != nil {
				b.Fatal(err)
			}
		}
		db.Close()
	}
}
