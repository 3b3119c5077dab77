//go:build unix

package safefile

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openNonblock opens path with O_NONBLOCK, so that opening a FIFO with no
// writer returns at once instead of waiting for one.
func openNonblock(path string, noFollow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(path, flags, 0)
}

// clearNonblock puts a regular file back in blocking mode (reads of a
// regular file never block either way; this keeps the file's later users
// from seeing EAGAIN should it be handed on).
func clearNonblock(f *os.File) error {
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	_, err = unix.FcntlInt(f.Fd(), unix.F_SETFL, flags&^unix.O_NONBLOCK)
	return err
}
