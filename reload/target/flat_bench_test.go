package target

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/skillstore/skillstore/reload"
)

// BenchmarkExportFlat measures an export into a flat target of 1,000
// skills that changed nothing, and the first export, for two published
// sets: 1,000 managed skills (the reference) and 500 managed skills each
// colliding with a plugin's skill of the same short name (500 folders
// renamed PLUGIN-NAME). An unchanged export must cost the same for both:
// a renamed skill is judged by its store tree, never read.
func BenchmarkExportFlat(b *testing.B) {
	sets := []struct {
		name string
		set  func(b *testing.B, loads map[string]int) []reload.Skill
	}{
		{"reference-1000-managed", func(b *testing.B, loads map[string]int) []reload.Skill {
			var out []reload.Skill
			for i := range 1000 {
				n := fmt.Sprintf("skill-%04d", i)
				out = append(out, memSkill(b, n, n, "Step one.\n", loads))
			}
			return out
		}},
		{"500-managed-500-renamed", func(b *testing.B, loads map[string]int) []reload.Skill {
			var out []reload.Skill
			for i := range 500 {
				n := fmt.Sprintf("skill-%04d", i)
				out = append(out, memSkill(b, n, n, "Step one.\n", loads), memSkill(b, "plug:"+n, n, "Step one.\n", loads))
			}
			return out
		}},
	}
	for _, s := range sets {
		b.Run(s.name+"/unchanged", func(b *testing.B) {
			loads := map[string]int{}
			set := s.set(b, loads)
			dir := filepath.Join(b.TempDir(), "skills")
			targets := []Target{{Name: "t", Dir: dir}}
			eo := reload.ExportOptions{Grace: -1}
			if _, err := exportPublished(context.Background(), set, targets, eo); err != nil {
				b.Fatal(err)
			}
			first := len(loads)
			b.ResetTimer()
			for range b.N {
				if _, err := exportPublished(context.Background(), set, targets, eo); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			total := 0
			for _, n := range loads {
				total += n
			}
			if total != first {
				b.Fatalf("unchanged exports read %d skills", total-first)
			}
		})
		b.Run(s.name+"/first", func(b *testing.B) {
			loads := map[string]int{}
			set := s.set(b, loads)
			for i := range b.N {
				dir := filepath.Join(b.TempDir(), fmt.Sprint("skills", i))
				if _, err := exportPublished(context.Background(), set, []Target{{Name: "t", Dir: dir}}, reload.ExportOptions{Grace: -1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
