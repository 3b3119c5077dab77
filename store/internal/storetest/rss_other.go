//go:build !unix

package storetest

import (
	"os"
	"testing"
	"time"
)

// MaxRSS: this system reports no peak resident size of the running
// process through the standard library; the test that measures it skips.
func MaxRSS(t testing.TB) int64 {
	t.Skip("no peak resident size here")
	return 0
}

// ProcessUsage is the CPU time of the exited process ps; its peak
// resident size is unknown here (0).
func ProcessUsage(ps *os.ProcessState) (cpu time.Duration, rss int64) {
	return ps.UserTime() + ps.SystemTime(), 0
}
