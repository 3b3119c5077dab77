//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// usage returns the CPU time (user + system) and peak resident memory in
// bytes of the exited process ps, from its rusage. ru_maxrss counts bytes
// on macOS and KiB on Linux and the BSDs.
func usage(ps *os.ProcessState) (cpu time.Duration, rss int64) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, 0
	}
	rss = int64(ru.Maxrss)
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		rss *= 1024
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), rss
}
