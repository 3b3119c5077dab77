package reload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
)

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

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
