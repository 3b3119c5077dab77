//go:build windows

package safefile

import (
	"os"
	"syscall"
)

// openNonblock opens path; Windows has no FIFOs in its file systems (named
// pipes live under \\.\pipe\, which a path of a folder never reaches), so
// no open can block. With noFollow the open uses
// FILE_FLAG_OPEN_REPARSE_POINT: a symbolic link or junction at path is
// opened itself, and Open's check of the opened file refuses it.
func openNonblock(path string, noFollow bool) (*os.File, error) {
	flag := os.O_RDONLY
	if noFollow {
		flag |= syscall.FILE_FLAG_OPEN_REPARSE_POINT
	}
	return os.OpenFile(path, flag, 0)
}

func clearNonblock(*os.File) error { return nil }
