package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkResolveSkill resolves names in a store of 50,000 plugin skill
// refs (500 plugins of 100 skills, packed, as after gc) plus a managed
// skill. Each resolution is a View of its own, as a command does. The
// reference (ref-ns/op) is the way round a store without ref seeking
// would have to take for a short name: one View listing every published
// ref (Reader.RefNames of refs/heads/plugins/).
func BenchmarkResolveSkill(b *testing.B) {
	requireGitBench(b)
	ctx := context.Background()
	s := newTestStore(b)
	src := b.TempDir()
	writeSkill(b, src, "managed", "a managed skill", nil)
	if _, err := s.Add(ctx, []string{filepath.Join(src, "managed")}, defaultAdd()); err != nil {
		b.Fatal(err)
	}
	var head Hash
	if err := s.View(ctx, func(r *Reader) error { v, err := r.Head("managed"); head = v.Commit; return err }); err != nil {
		b.Fatal(err)
	}
	var in strings.Builder
	for p := 0; p < 500; p++ {
		for k := 0; k < 100; k++ {
			fmt.Fprintf(&in, "create refs/heads/plugins/plugin%03d/skill%03d-%03d %s\n", p, p, k, head)
		}
	}
	benchRunGit(b, s.Dir(), []byte(in.String()), "update-ref", "--stdin")
	benchRunGit(b, s.Dir(), nil, "pack-refs", "--all")

	for _, c := range []struct{ name, input, want string }{
		{"short", "skill250-042", "plugin250:skill250-042"},
		{"qualified", "plugin250:skill250-042", "plugin250:skill250-042"},
		{"managed", "managed", "managed"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var ours, ref time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				got, err := s.ResolveSkill(ctx, c.input)
				ours += time.Since(t0)
				if err != nil || got != c.want {
					b.Fatalf("ResolveSkill(%s) = %s, %v", c.input, got, err)
				}
				t0 = time.Now()
				n := 0
				err = s.View(ctx, func(r *Reader) error { n = len(r.RefNames(PluginRefPrefix)); return nil })
				ref += time.Since(t0)
				if err != nil || n != 50000 {
					b.Fatalf("listing: %d refs, %v", n, err)
				}
			}
			b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ns/op")
			b.ReportMetric(float64(ref.Nanoseconds())/float64(b.N), "ref-ns/op")
			b.ReportMetric(float64(ours)/float64(ref), "ratio")
		})
	}
}
