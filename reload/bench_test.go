package reload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// The reference design polls every 3 s and debounces 1.5 s, so a change
// reaches its reload 3 to 4.5 s after the write (DESIGN.md). It is a
// design figure, not a tool that can run here, so it is reported as such.
const (
	refLatencyMinMS = 3000
	refLatencyMaxMS = 4500
)

// BenchmarkWatchLatency measures, over 200 edits of SKILL.md with the
// default debounce, the time from the write to the reload callback, and
// reports the median and p99 beside the goal (debounce + 20 ms) and the
// reference design's 3 to 4.5 s.
func BenchmarkWatchLatency(b *testing.B) {
	const edits = 200
	var lat []time.Duration
	for range b.N {
		root := b.TempDir()
		writeTree(b, root, map[string]string{"deploy/SKILL.md": skillMD("deploy", "v0")})
		called := make(chan time.Time, 1)
		w, err := NewWatcher([]string{root}, WatchOptions{OnReload: func(ctx context.Context, ev Event) error {
			called <- time.Now()
			return nil
		}})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		p := filepath.Join(root, "deploy", "SKILL.md")
		for i := range edits {
			start := time.Now()
			if err := os.WriteFile(p, []byte(skillMD("deploy", fmt.Sprintf("edit %d", i))), 0o644); err != nil {
				b.Fatal(err)
			}
			select {
			case at := <-called:
				lat = append(lat, at.Sub(start))
			case <-time.After(eventTimeout):
				b.Fatalf("edit %d: no reload", i)
			}
		}
		cancel()
		<-done
	}
	slices.Sort(lat)
	b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	b.ReportMetric(ms(DefaultDebounce+20*time.Millisecond), "goal-ms")
	b.ReportMetric(refLatencyMinMS, "ref-min-ms")
	b.ReportMetric(refLatencyMaxMS, "ref-max-ms")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func benchSkills(n int, version string) []Skill {
	skills := make([]Skill, n)
	for i := range skills {
		name := fmt.Sprintf("skill-%04d", i)
		skills[i] = Skill{Name: name, Files: []skillfs.File{
			{Path: "SKILL.md", Data: []byte("---\nname: " + name + "\ndescription: benchmark skill\n---\n" + version + "\n")},
			{Path: "scripts/run.sh", Mode: skillfs.Executable, Data: []byte("#!/bin/sh\necho " + name + "\n")},
			{Path: "references/guide.md", Data: []byte("# Guide\n\nSome reference text for " + name + ".\n")},
		}}
	}
	return skills
}

// BenchmarkExport exports 1,000 skills into an empty target, then exports
// again with 10 of them changed, and reports the second as a fraction of
// the first (goal: at most 5%), averaged over the runs. The reference is
// what installers do today on update: delete every skill folder and copy it
// again (without any fsync), measured on the same 1,000 skills; ref-ratio
// is the incremental export over that re-copy.
func BenchmarkExport(b *testing.B) {
	const n, changed = 1000, 10
	ctx := context.Background()
	var full, incr, refCopy time.Duration
	for range b.N {
		target := filepath.Join(b.TempDir(), "skills")
		skills := benchSkills(n, "v1")
		start := time.Now()
		if _, err := Export(ctx, target, skills, ExportOptions{}); err != nil {
			b.Fatal(err)
		}
		full += time.Since(start)

		for i := range changed {
			skills[i*n/changed].Files[0].Data = []byte("---\nname: x\ndescription: changed\n---\nv2\n")
		}
		start = time.Now()
		rep, err := Export(ctx, target, skills, ExportOptions{})
		if err != nil {
			b.Fatal(err)
		}
		incr += time.Since(start)
		hot := 0
		for _, r := range rep.Results {
			if r.Action == ActionHot {
				hot++
			}
		}
		if hot != changed {
			b.Fatalf("%d hot skills, want %d", hot, changed)
		}

		// Reference: delete and re-copy every skill folder.
		ref := filepath.Join(b.TempDir(), "skills")
		start = time.Now()
		for _, s := range skills {
			dir := filepath.Join(ref, s.Name)
			if err := os.RemoveAll(dir); err != nil {
				b.Fatal(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := WriteFiles(dir, s.Files); err != nil {
				b.Fatal(err)
			}
		}
		refCopy += time.Since(start)
	}
	runs := time.Duration(b.N)
	b.ReportMetric(ms(full/runs), "full-ms")
	b.ReportMetric(ms(incr/runs), "incr-ms")
	b.ReportMetric(float64(incr)/float64(full), "ratio")
	b.ReportMetric(ms(refCopy/runs), "ref-recopy-ms")
	b.ReportMetric(float64(incr)/float64(refCopy), "ref-ratio")
}
