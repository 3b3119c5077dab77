//go:build !unix

package store

import "testing"

// maxRSS: this system reports no peak resident size of the running
// process through the standard library; the test that measures it skips.
func maxRSS(t *testing.T) int64 {
	t.Skip("no peak resident size here")
	return 0
}
