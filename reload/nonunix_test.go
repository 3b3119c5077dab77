//go:build !unix

package reload

import (
	"errors"
	"os"
)

// mkfifo: this system has no FIFOs in its file systems; the tests that
// need one skip (or fail where they cannot do without).
func mkfifo(string) error { return errors.ErrUnsupported }

// killSelf ends the test process as a crash would (TerminateProcess on
// Windows): no deferred code runs.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
	}
}
