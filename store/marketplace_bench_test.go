package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkAddMarketplace adds the miniature directory of
// TestAddDirectoryMarketplace (72 entries, 38 local repositories, 55
// plugins added) to an empty store, beside its reference: a shell loop of
// `git fetch` (C git) of the marketplace and every repository its entries
// name into one bare repository, the least a script following the
// marketplace by hand would do. Both fetch over file://; neither waits on a
// network, so the figure is skillstore's own cost per plugin.
func BenchmarkAddMarketplace(b *testing.B) {
	d := buildDirectory(b)
	src, err := ParseSource(d.market, "")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var ours, ref time.Duration
	for i := 0; i < b.N; i++ {
		s := newSyncStore(b)
		start := time.Now()
		rep, err := s.AddPlugin(ctx, src, AddPluginOptions{})
		ours += time.Since(start)
		if err != nil || len(rep.Plugins) != len(d.added)+len(d.failed) {
			b.Fatalf("add: %v (%d plugins)", err, len(rep.Plugins))
		}
		bare := b.TempDir()
		gitRun(b, bare, "init", "-q", "--bare")
		start = time.Now()
		for j, repo := range append([]string{d.market}, d.repos...) {
			gitRun(b, bare, "fetch", "-q", "file://"+repo, fmt.Sprintf("+HEAD:refs/r/%d", j))
		}
		ref += time.Since(start)
	}
	benchReport(b, ours, ref)
}
