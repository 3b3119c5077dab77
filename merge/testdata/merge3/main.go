// Command merge3 is the smallest program around the merge package:
// `merge3 CURRENT BASE OTHER` prints the merge (plain style, like
// `git merge-file -p`) and exits with the number of conflicts. The
// benchmarks build it to time the package with process start included, apart
// from the start-up cost of the whole skillstore binary.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"syscall"

	"github.com/skillstore/skillstore/merge"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: merge3 CURRENT BASE OTHER")
		os.Exit(2)
	}
	debug.SetGCPercent(-1) // one shot: as skillstore merge-file does
	debug.SetMemoryLimit(256 << 20)
	var data [3][]byte
	for i, name := range os.Args[1:] {
		var err error
		if data[i], err = mapFile(name); err != nil {
			fmt.Fprintln(os.Stderr, "merge3:", err)
			os.Exit(255)
		}
	}
	opts := merge.Options{Style: merge.Plain, Labels: merge.Labels{Ours: os.Args[1], Base: os.Args[2], Theirs: os.Args[3]}}
	res, err := merge.SkillMD(data[1], data[0], data[2], opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "merge3:", err)
		os.Exit(255)
	}
	os.Stdout.Write(res.Merged)
	os.Exit(min(len(res.Conflicts), 127))
}

// mapFile maps a file into memory read-only: its pages come from the page
// cache as they are read, with no copy into freshly allocated memory. The
// mapping lives until the process exits.
func mapFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 || !st.Mode().IsRegular() {
		return os.ReadFile(name) // empty files cannot be mapped; pipes and devices are read
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", name, err)
	}
	return data, nil
}
