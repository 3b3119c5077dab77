//go:build unix

package store

import (
	"runtime"
	"syscall"
	"testing"
)

// maxRSS is the process's peak resident size in bytes so far.
func maxRSS(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skipf("getrusage: %v", err)
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss // macOS reports bytes
	}
	return ru.Maxrss * 1024 // Linux reports kilobytes
}
