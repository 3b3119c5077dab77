package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// gcWorks measure gc on copies of a fixture's store (gc rewrites it):
// "gc" is a repeated gc with nothing new (the store gc'd once, untimed),
// beside git gc on a copy git gc'd once; "gc (first)" is the first gc
// after the import (every delta searched for), beside git repack -adf
// --window=4, which recomputes every delta too. Large sizes run once.
func gcWorks() []work {
	return []work{
		{name: "gc", measure: measureRepeatedGC},
		{name: "gc (first)", measure: measureFirstGC},
	}
}

// copyStore copies the fixture's store to dir (untimed).
func copyStore(f *fixture, dir string) error {
	os.RemoveAll(dir)
	if out, err := exec.Command("cp", "-a", f.store, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("copy store: %v: %s", err, out)
	}
	return nil
}

func gcBins(b *bench) []string {
	bins := []string{b.bin}
	if b.oldBin != "" {
		bins = append(bins, b.oldBin)
	}
	return bins
}

func measureRepeatedGC(b *bench, f *fixture, reps int, tmp string) (row, error) {
	r := row{work: "gc", n: f.n, refCommand: "git gc"}
	var samples [2][]sample
	for i, bin := range gcBins(b) {
		dir := filepath.Join(tmp, fmt.Sprintf("gc-%d-%d", f.n, i))
		if err := copyStore(f, dir); err != nil {
			return r, err
		}
		if _, err := b.run(bin, dir, "gc"); err != nil {
			return r, err
		}
		for k := 0; k < reps; k++ {
			s, err := b.run(bin, dir, "gc")
			if err != nil {
				return r, err
			}
			samples[i] = append(samples[i], s)
		}
		os.RemoveAll(dir)
	}
	dir := filepath.Join(tmp, fmt.Sprintf("gc-%d.git", f.n))
	if err := copyStore(f, dir); err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	var ref []sample
	for k := 0; k <= reps; k++ {
		s, err := b.run("git", "", "--git-dir", dir, "gc", "-q")
		if err != nil {
			return r, err
		}
		if k > 0 {
			ref = append(ref, s)
		}
	}
	r.ours, r.old, r.ref = summarize(samples[0]), summarize(samples[1]), summarize(ref)
	return r, nil
}

func measureFirstGC(b *bench, f *fixture, reps int, tmp string) (row, error) {
	if f.n >= 10000 {
		reps = 1
	}
	r := row{work: "gc (first)", n: f.n, refCommand: "git repack -adf --window=4"}
	var samples [2][]sample
	var ref []sample
	for k := 0; k < reps; k++ {
		for i, bin := range gcBins(b) {
			dir := filepath.Join(tmp, fmt.Sprintf("gc1-%d-%d", f.n, i))
			if err := copyStore(f, dir); err != nil {
				return r, err
			}
			s, err := b.run(bin, dir, "gc")
			os.RemoveAll(dir)
			if err != nil {
				return r, err
			}
			samples[i] = append(samples[i], s)
		}
		dir := filepath.Join(tmp, fmt.Sprintf("gc1-%d.git", f.n))
		if err := copyStore(f, dir); err != nil {
			return r, err
		}
		s, err := b.run("git", "", "--git-dir", dir, "repack", "-adf", "-q", "--window=4")
		os.RemoveAll(dir)
		if err != nil {
			return r, err
		}
		ref = append(ref, s)
	}
	r.ours, r.old, r.ref = summarize(samples[0]), summarize(samples[1]), summarize(ref)
	return r, nil
}
