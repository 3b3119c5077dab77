package discover

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// benchSkills is the size of the generated tree: the target is
// discovery + parse + validate of 10,000 skills of 3 files each within 3×
// the wall time of `find ROOT -name SKILL.md`, in under 100 MB.
const benchSkills = 10000

// generateTree writes n skills of three files each (SKILL.md, a script
// and a reference), 100 to a namespace folder, and returns the root.
func generateTree(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		dir := filepath.Join(root, fmt.Sprintf("team-%03d", i/100), name)
		for _, sub := range []string{"scripts", "references"} {
			if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: Generated skill %d. Use when benchmarking discovery of many skills.\n"+
			"license: MIT\nmetadata:\n  author: bench\n  version: \"1.0\"\nallowed-tools: Read Grep\n---\n\n# %s\n\n"+
			"Run `scripts/run.sh` and read references/guide.md.\n\n1. First step.\n2. Second step.\n", name, i, name)
		files := map[string]string{
			"SKILL.md":            md,
			"scripts/run.sh":      "#!/bin/sh\necho run\n",
			"references/guide.md": "# Guide\n\nDetails.\n",
		}
		for rel, content := range files {
			if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

// peakHeap samples the live heap while running fn and returns its maximum.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				read()
			}
		}
	}()
	fn()
	read()
	close(stop)
	wg.Wait()
	return peak.Load()
}

// BenchmarkDiscover10k reports skillstore's discovery + parse + validate of
// 10,000 generated skills beside `find ROOT -name SKILL.md` on the same tree
// in the same run: ns/op vs find-ns/op, their ratio, and the peak live heap.
func BenchmarkDiscover10k(b *testing.B) {
	findPath, err := exec.LookPath("find")
	if err != nil {
		b.Skip("find not installed: no reference to compare with")
	}
	root := generateTree(b, benchSkills)
	roots := []Root{{Path: root, Layer: LayerCLI, Label: "cli:1"}}
	ctx := context.Background()
	// Warm the page cache for both.
	if _, err := DiscoverRoots(ctx, roots, Options{}); err != nil {
		b.Fatal(err)
	}

	var findTime, ourTime time.Duration
	var peak uint64
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := exec.Command(findPath, root, "-name", skillmd.FileName).Run(); err != nil {
			b.Fatal(err)
		}
		findTime += time.Since(start)

		var res *Result
		p := peakHeap(func() {
			start = time.Now()
			res, err = DiscoverRoots(ctx, roots, Options{})
			ourTime += time.Since(start)
		})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Skills) != benchSkills || len(res.Active()) != benchSkills {
			b.Fatalf("found %d skills (%d active), want %d", len(res.Skills), len(res.Active()), benchSkills)
		}
		peak = max(peak, p)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(ourTime.Nanoseconds())/n, "ns/op")
	b.ReportMetric(float64(findTime.Nanoseconds())/n, "find-ns/op")
	b.ReportMetric(float64(ourTime)/float64(findTime), "ratio")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// BenchmarkLocate10k reports Locate (import's walk: the same rules, no
// SKILL.md read) on the 10,000-skill tree beside `find ROOT -name
// SKILL.md` in the same run.
func BenchmarkLocate10k(b *testing.B) {
	findPath, err := exec.LookPath("find")
	if err != nil {
		b.Skip("find not installed: no reference to compare with")
	}
	root := generateTree(b, benchSkills)
	ctx := context.Background()
	if _, _, err := Locate(ctx, root, Options{}); err != nil {
		b.Fatal(err)
	}
	var findTime, ourTime time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := exec.Command(findPath, root, "-name", skillmd.FileName).Run(); err != nil {
			b.Fatal(err)
		}
		findTime += time.Since(start)
		start = time.Now()
		found, _, err := Locate(ctx, root, Options{})
		ourTime += time.Since(start)
		if err != nil || len(found) != benchSkills {
			b.Fatalf("located %d skills (%v), want %d", len(found), err, benchSkills)
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(ourTime.Nanoseconds())/n, "ns/op")
	b.ReportMetric(float64(findTime.Nanoseconds())/n, "find-ns/op")
	b.ReportMetric(float64(ourTime)/float64(findTime), "ratio")
}

// BenchmarkParse measures Parse plus Validate of one typical SKILL.md.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtures, "anthropic", "skills", "pdf", skillmd.FileName))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for range b.N {
		if _, diags := ValidateFile("pdf/SKILL.md", "pdf", data, Strict); HasErrors(diags) {
			b.Fatal(diags)
		}
	}
}
