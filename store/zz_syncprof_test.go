package store

// TEMPORARY profiling harness (perf helper); delete before handing back.

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkZZSyncProf(b *testing.B) {
	root := "/tmp/syncprof"
	storeDir := filepath.Join(root, "store")
	var s *Store
	if _, err := os.Stat(storeDir); err != nil {
		os.RemoveAll(root)
		dirs := benchPlugins(b, filepath.Join(root, "src"), 100, 10)
		var err error
		s, err = Init(context.Background(), storeDir, Options{Actor: Signature{Name: "Tester", Email: "t@example.com"}})
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range dirs {
			src, err := ParseSource(d, "")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.AddPlugin(context.Background(), src, AddPluginOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		runGit(b, s.Dir(), nil, "repack", "-a", "-d", "-q")
		runGit(b, s.Dir(), nil, "pack-refs", "--all")
	} else {
		var err error
		if s, err = Open(context.Background(), storeDir, Options{Actor: Signature{Name: "Tester", Email: "t@example.com"}}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Sync(context.Background(), SyncOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		rep, err := s.Sync(context.Background(), SyncOptions{})
		if err != nil || rep.Failed() {
			b.Fatal(err, rep)
		}
	}
}
