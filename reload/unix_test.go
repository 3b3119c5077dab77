//go:build unix

package reload

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func mkfifo(path string) error { return unix.Mkfifo(path, 0o644) }

// killSelf ends the test process as a crash would: SIGKILL, no deferred
// code runs.
func killSelf() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
