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

// BenchmarkFindIn50Packs looks up objects in a store of 50 packs (an
// import of 50,000 skills leaves one per batch until gc), reading each
// pack's objects in turn as a listing does: "last-pack-first" is the
// reader as it is (the pack of the previous hit tried first),
// "ref-pack-by-pack" tries the packs in order every time, as it did
// before. One pack's lookups are the floor.
func BenchmarkFindIn50Packs(b *testing.B) {
	dir := b.TempDir()
	var all []ID
	for p := range 50 {
		objs := make([]PackObject, 200)
		for i := range objs {
			data := []byte(fmt.Sprintf("pack %d object %d\n", p, i))
			objs[i] = PackObject{ID: HashObject(BlobObject, data), Type: BlobObject, Data: data}
			all = append(all, objs[i].ID)
		}
		if _, err := WritePack(dir, objs, zlib.BestSpeed); err != nil {
			b.Fatal(err)
		}
	}
	pr := openPacks(dir)
	defer pr.close()
	if len(pr.packs) != 50 {
		b.Fatalf("%d packs", len(pr.packs))
	}
	b.Run("last-pack-first", func(b *testing.B) {
		for b.Loop() {
			for _, h := range all {
				if _, _, ok := pr.find(h); !ok {
					b.Fatal("not found")
				}
			}
		}
	})
	b.Run("ref-pack-by-pack", func(b *testing.B) {
		for b.Loop() {
			for _, h := range all {
				found := false
				for _, p := range pr.packs {
					if _, ok := p.offset(h); ok {
						found = true
						break
					}
				}
				if !found {
					b.Fatal("not found")
				}
			}
		}
	})
}
