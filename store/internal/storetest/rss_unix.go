//go:build unix

package storetest

import (
	"runtime"
	"syscall"
	"testing"
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
