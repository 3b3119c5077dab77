//go:build !unix

package pluginfmt_test

import "errors"

// mkfifo: this system has no FIFOs in its file systems; the tests that
// need one skip (or fail where they cannot do without).
func mkfifo(string) error { return errors.ErrUnsupported }
