// Command merge3 is the smallest program around the line merge, package
// diff3: `merge3 CURRENT BASE OTHER` prints the merge (plain style, like
// `git merge-file -p`) and exits with the number of conflicts. The
// benchmarks build it to time the merge with process start included, apart
// from the start-up cost of the whole skillstore binary.
package main

import (
	"os"
	"runtime/debug"
	"syscall"

	"github.com/skillstore/skillstore/merge/diff3"
)

func main() {
	if len(os.Args) != 4 {
		fail(2, "usage: merge3 CURRENT BASE OTHER")
	}
	debug.SetGCPercent(-1) // one shot: as skillstore merge-file does
	debug.SetMemoryLimit(256 << 20)
	var data [3][]byte
	for i, name := range os.Args[1:] {
		var err error
		if data[i], err = mapFile(name); err != nil {
			fail(255, "merge3: "+err.Error())
		}
	}
	opts := diff3.Options{Style: diff3.Plain, Labels: diff3.Labels{Ours: os.Args[1], Base: os.Args[2], Theirs: os.Args[3]}}
	res, err := diff3.Merge(data[1], data[0], data[2], opts)
	if err != nil {
		fail(255, "merge3: "+err.Error())
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
		return nil, &os.PathError{Op: "mmap", Path: name, Err: err}
	}
	return data, nil
}

// fail prints msg and exits with code; merge3 links no fmt, to stay small.
func fail(code int, msg string) {
	os.Stderr.WriteString(msg + "\n")
	os.Exit(code)
}
