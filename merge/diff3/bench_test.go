package diff3

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchTriple is an n-line file with 50 scattered one-line changes on each
// side, never on the same lines, so the merge is clean.
func benchTriple(n int) (base, ours, theirs []byte) {
	r := rand.New(rand.NewPCG(uint64(n), 1))
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d: %s", i, strings.Repeat("x", r.IntN(40)))
	}
	edit := func(offset int) []byte {
		out := append([]string(nil), lines...)
		step := n / 50
		for k := range 50 {
			i := k*step + offset%step
			out[i] = fmt.Sprintf("changed %d by side %d", i, offset)
		}
		return []byte(strings.Join(out, "\n") + "\n")
	}
	return []byte(strings.Join(lines, "\n") + "\n"), edit(3), edit(n / 100)
}

// hostileTriple is the attack on the merge's cost: a SKILL.md-sized file
// of n lines of one letter each (under 1 MiB for n = 500,000), and two
// sides that reordered all of it. Every line of each file is in the others,
// in another order: the worst case of a line diff.
func hostileTriple(n int) (base, ours, theirs []byte) {
	r := rand.New(rand.NewPCG(uint64(n), 2))
	side := func() []byte {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('a' + r.IntN(26)))
			b.WriteByte('\n')
		}
		return []byte(b.String())
	}
	return side(), side(), side()
}

// BenchmarkMergeFile merges an n-line file with 50 scattered changes per
// side (lines=N), and the hostile triple of n lines (hostile=N, see
// hostileTriple, which the diff budget ends). ns/op is the in-process
// merge (Text) and ns/line its growth with the file size. Beside it, in
// the same run and on the same files, whole processes from start to exit,
// output discarded:
//
//	git-proc-ns/op         git merge-file -p (the reference)
//	merge3-proc-ns/op      testdata/merge3, a tiny command around the package
//	skillstore-proc-ns/op  skillstore merge-file -p, the real binary
//	merge3/git, skillstore/git   the ratios (below 1: faster than git)
//	merge3-cpu/git, skillstore-cpu/git   the same ratios for CPU time (user +
//	                       system), less sensitive to other load on the machine
//
// Both binaries are built once with go build into a temporary directory.
func BenchmarkMergeFile(b *testing.B) {
	dir := b.TempDir()
	bins := map[string]string{"merge3": filepath.Join(dir, "merge3"), "skillstore": filepath.Join(dir, "skillstore")}
	buildErr := exec.Command("go", "build", "-o", bins["merge3"], "./testdata/merge3").Run()
	if buildErr == nil {
		buildErr = exec.Command("go", "build", "-o", bins["skillstore"], "../../cmd/skillstore").Run()
	}
	_, gitErr := exec.LookPath("git")

	type triple func(n int) (base, ours, theirs []byte)
	cases := []struct {
		kind string
		n    int
		gen  triple
	}{
		{"lines", 1000, benchTriple}, {"lines", 2000, benchTriple}, {"lines", 10000, benchTriple},
		{"lines", 100000, benchTriple}, {"lines", 500000, benchTriple},
		{"hostile", 500000, hostileTriple},
	}
	for _, c := range cases {
		n := c.n
		b.Run(fmt.Sprintf("%s=%d", c.kind, n), func(b *testing.B) {
			base, ours, theirs := c.gen(n)
			for b.Loop() {
				res, err := Merge(base, ours, theirs, Options{Style: Plain})
				if err != nil || res.Clean() != (c.kind == "lines") {
					b.Fatalf("merge: %v, clean %v", err, res.Clean())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")

			if buildErr != nil {
				b.Logf("go build failed (%v): no process figures", buildErr)
				return
			}
			if gitErr != nil {
				b.Skip("git is not installed: no reference figure")
			}
			fdir := b.TempDir()
			for name, data := range map[string][]byte{"base": base, "ours": ours, "theirs": theirs} {
				if err := os.WriteFile(filepath.Join(fdir, name), data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			reps := 41
			switch {
			case c.kind == "hostile":
				reps = 3
			case n >= 100000:
				reps = 9
			}
			var git, tiny, full procTimes
			for range reps { // interleaved, so all three see the same machine load
				git.add(timeProcess(b, fdir, "git", "merge-file", "-p", "ours", "base", "theirs"))
				tiny.add(timeProcess(b, fdir, bins["merge3"], "ours", "base", "theirs"))
				full.add(timeProcess(b, fdir, bins["skillstore"], "merge-file", "-p", "ours", "base", "theirs"))
			}
			// Medians: the machine is shared, and a mean would report its load.
			g, m, f := median(git.wall), median(tiny.wall), median(full.wall)
			b.ReportMetric(float64(g.Nanoseconds()), "git-proc-ns/op")
			b.ReportMetric(float64(m.Nanoseconds()), "merge3-proc-ns/op")
			b.ReportMetric(float64(f.Nanoseconds()), "skillstore-proc-ns/op")
			b.ReportMetric(float64(m)/float64(g), "merge3/git")
			b.ReportMetric(float64(f)/float64(g), "skillstore/git")
			gc := median(git.cpu)
			b.ReportMetric(float64(median(tiny.cpu))/float64(gc), "merge3-cpu/git")
			b.ReportMetric(float64(median(full.cpu))/float64(gc), "skillstore-cpu/git")
		})
	}
}

// procTimes collects the wall-clock and CPU times of process runs.
type procTimes struct{ wall, cpu []time.Duration }

func (p *procTimes) add(wall, cpu time.Duration) {
	p.wall = append(p.wall, wall)
	p.cpu = append(p.cpu, cpu)
}

// timeProcess runs a command to completion, its output discarded, and
// returns how long it took from start to exit and the CPU time it used.
// An exit code below 128 is a merge's count of conflicts, not a failure.
func timeProcess(b *testing.B, dir, name string, args ...string) (wall, cpu time.Duration) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	cmd.Stdout, cmd.Stderr = devnull, devnull
	start := time.Now()
	if err := cmd.Run(); err != nil && (cmd.ProcessState == nil || cmd.ProcessState.ExitCode() < 0 || cmd.ProcessState.ExitCode() >= 128) {
		b.Fatalf("%s %v: %v", name, args, err)
	}
	wall = time.Since(start)
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
