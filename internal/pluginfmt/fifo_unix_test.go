//go:build unix

package pluginfmt_test

import "syscall"

// mkfifo makes a FIFO at path, for the tests that a FIFO must not block.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
