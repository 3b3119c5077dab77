package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
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
