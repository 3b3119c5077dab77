//go:build unix

package storetest

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// MaxRSS is the process's peak resident size in bytes so far.
func MaxRSS(t testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skipf("getrusage: %v", err)
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss // macOS reports bytes
	}
	return ru.Maxrss * 1024 // Linux reports kilobytes
}

// ProcessUsage is the CPU time (user + system) and peak resident size in
// bytes of the exited process ps, from its rusage (0, 0 when unknown).
func ProcessUsage(ps *os.ProcessState) (cpu time.Duration, rss int64) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, 0
	}
	rss = int64(ru.Maxrss)
	if runtime.GOOS != "darwin" {
		rss *= 1024
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), rss
}
