//go:build !unix

package storetest

import "testing"

// MaxRSS: this system reports no peak resident size of the running
// process through the standard library; the test that measures it skips.
func MaxRSS(t testing.TB) int64 {
	t.Skip("no peak resident size here")
	return 0
}
