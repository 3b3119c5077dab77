package target

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// captureBench is a store with n skills exported into one target.
type captureBench struct {
	s       *store.Store
	targets []Target
	dir     string
	n       int
	round   int
}

func newCaptureBench(b *testing.B, n int) *captureBench {
	ctx := context.Background()
	tmp := b.TempDir()
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var dirs []string
	for i := range n {
		d := filepath.Join(tmp, "src", fmt.Sprintf("skill-%03d", i))
		writeSkill(b, d, "Step one.\nStep two.\n")
		dirs = append(dirs, d)
	}
	if _, err := s.Add(ctx, dirs, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk}); err != nil {
		b.Fatal(err)
	}
	cb := &captureBench{s: s, dir: filepath.Join(tmp, "agent"), n: n}
	cb.targets = []Target{{Name: "claude", Dir: cb.dir}}
	if _, err := Export(ctx, s, cb.targets, Options{}); err != nil {
		b.Fatal(err)
	}
	return cb
}

// edit changes every exported folder (a new line per round).
func (cb *captureBench) edit(b *testing.B) {
	cb.round++
	for i := range cb.n {
		writeSkill(b, filepath.Join(cb.dir, fmt.Sprintf("skill-%03d", i)), fmt.Sprintf("Step one.\nStep two.\nEdit %d.\n", cb.round))
	}
}

// perSkill captures the edits the way capture did before it used one
// transaction: one store transaction and one adoption per skill. It is
// the reference the benchmark prints beside capture.
func (cb *captureBench) perSkill(b *testing.B) {
	ctx := context.Background()
	for i := range cb.n {
		name := fmt.Sprintf("skill-%03d", i)
		files, err := reload.ReadDir(filepath.Join(cb.dir, name))
		if err != nil {
			b.Fatal(err)
		}
		err = cb.s.Update(ctx, func(tx *store.Tx) error {
			head, err := tx.Head(name)
			if err != nil {
				return err
			}
			tree, err := tx.WriteTree(files)
			if err != nil {
				return err
			}
			_, err = tx.CommitVersion(name, tree, store.VersionInfo{Source: head.Source, MergeMode: MergeModeCapture, Actor: captureActor(tx)})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := reload.Adopt(ctx, cb.dir, name, files, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCapture300 captures 300 edited skills at once (ns/op) and prints
// beside it the same work done one transaction per skill (ref-ns/op).
func BenchmarkCapture300(b *testing.B) {
	const n = 300
	cb := newCaptureBench(b, n)
	ctx := context.Background()
	var ours, ref time.Duration
	for range b.N {
		cb.edit(b)
		start := time.Now()
		res, err := Capture(ctx, cb.s, cb.targets, CaptureOptions{})
		ours += time.Since(start)
		if err != nil || len(res) != n || res[0].Outcome != Captured {
			b.Fatalf("capture: %d results, %v", len(res), err)
		}
		cb.edit(b)
		start = time.Now()
		cb.perSkill(b)
		ref += time.Since(start)
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(ref.Nanoseconds())/float64(b.N), "ref-ns/op")
	b.ReportMetric(float64(ours)/float64(ref), "ratio")
}
