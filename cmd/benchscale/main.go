// Command benchscale measures skillstore on synthetic stores of growing
// size (skills of ~8 KB in 3 files) and prints each figure beside the git
// command that does the same work on the same repository (for export, the
// copy tools doing the same file work: cp -a, rsync -a), with peak
// memory, and how each figure grows from one size to the next.
//
// The stores are generated once under -cache and reused by later runs;
// commands that write (add, rollback, candidates accept) add versions to
// one skill, which does not change the store's size. Timings are medians
// of -reps runs taken in the same run as their reference, so a loaded
// machine shifts both: read the ratios.
//
// With -calm N it also measures, on a store of N plugins from git
// repositories (calm.go), verify beside git fsck --strict, a no-op sync
// beside git fetch --multiple --jobs=8 of the same sources, a no-op export
// and doctor.
//
// Run it with `make bench-scale` (see docs/design/performance.md), or `make bench-calm`
// for the calm works alone.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchscale:", err)
		os.Exit(1)
	}
}

func run() error {
	bin := flag.String("bin", "bin/skillstore", "the skillstore binary to measure")
	oldBin := flag.String("old-bin", "", "an older skillstore binary to measure beside it (optional)")
	cache := flag.String("cache", defaultCache(), "folder for the generated stores (kept between runs)")
	sizes := flag.String("sizes", "100,1000,10000,50000", "store sizes in skills, comma-separated (empty: none)")
	calm := flag.Int("calm", 0, "also measure verify, doctor and a no-op sync and export on a store of this many plugins (3 skills each; 0: not)")
	reps := flag.Int("reps", 5, "runs per figure (the median time is shown)")
	only := flag.String("only", "", "measure only these works (comma-separated names)")
	flag.Parse()

	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 100 {
			return fmt.Errorf("bad size %q (at least 100)", s)
		}
		ns = append(ns, n)
	}
	tmp, err := os.MkdirTemp("", "benchscale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b := &bench{bin: abs(*bin), env: benchEnv(tmp)}
	if *oldBin != "" {
		b.oldBin = abs(*oldBin)
	}
	works := allWorks()
	if *only != "" {
		works = selectWorks(works, strings.Split(*only, ","))
	}
	results := map[string][]row{} // work -> one row per size
	for _, n := range ns {
		f := newFixture(*cache, n)
		if err := f.ensure(b); err != nil {
			return fmt.Errorf("generate %d skills: %w", n, err)
		}
		for _, w := range works {
			r, err := measureWork(b, f, w, *reps, tmp)
			if err != nil {
				return fmt.Errorf("%s at %d skills: %w", w.name, n, err)
			}
			results[w.name] = append(results[w.name], r)
			printRow(r)
		}
	}
	if len(ns) > 0 {
		fmt.Println()
		printTable(works, results, b.oldBin != "")
	}
	if *calm > 0 {
		return measureCalm(b, *cache, *calm, *reps)
	}
	return nil
}

func defaultCache() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "skillstore-bench")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "skillstore-bench")
	}
	return ".cache/skillstore-bench"
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// row is one work at one size.
type row struct {
	work       string
	n          int
	ours, old  figure
	ref        figure
	refCommand string
}

func printRow(r row) {
	fmt.Fprintf(os.Stderr, "%-18s %6d  %-18s old %-18s %s %s\n", r.work, r.n, r.ours, r.old, r.refCommand, r.ref)
}

func ratio(a, b figure) string {
	if !a.ok || !b.ok || b.wall == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", float64(a.wall)/float64(b.wall))
}

func cpuRatio(a, b figure) string {
	if !a.ok || !b.ok || b.cpu == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", float64(a.cpu)/float64(b.cpu))
}

func memRatio(a, b figure) string {
	if !a.ok || !b.ok || b.rss == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", float64(a.rss)/float64(b.rss))
}

func ratios(a, b figure) string {
	if !a.ok || !b.ok {
		return "-"
	}
	return ratio(a, b) + " " + cpuRatio(a, b) + " " + memRatio(a, b)
}

// printTable prints every figure with its reference and the growth from
// the previous size (time and memory of the binary under test).
func printTable(works []work, results map[string][]row, withOld bool) {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	header := "work\tskills\tskillstore (wall / cpu / peak mem)\t"
	if withOld {
		header += "old\tvs old (wall, cpu, mem)\t"
	}
	header += "reference\tref\tvs ref (wall, cpu, mem)\tgrowth (wall, cpu, mem)\n"
	fmt.Fprint(tw, header)
	for _, w := range works {
		rows := results[w.name]
		for i, r := range rows {
			line := fmt.Sprintf("%s\t%d\t%s\t", r.work, r.n, r.ours)
			if withOld {
				line += fmt.Sprintf("%s\t%s\t", r.old, ratios(r.ours, r.old))
			}
			growth := "-"
			if i > 0 {
				growth = ratios(r.ours, rows[i-1].ours)
			}
			line += fmt.Sprintf("%s\t%s\t%s\t%s\n", r.refCommand, r.ref, ratios(r.ours, r.ref), growth)
			fmt.Fprint(tw, line)
		}
	}
	tw.Flush()
}
