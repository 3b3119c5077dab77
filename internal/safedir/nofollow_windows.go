//go:build windows

package safedir

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// openNoFollow opens path with FILE_FLAG_OPEN_REPARSE_POINT: a symbolic
// link or junction there is opened itself, not what it points at, so the
// caller's check of the opened file sees it and refuses it.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.FILE_FLAG_OPEN_REPARSE_POINT, perm)
}

// inUse turns a rename of path that Windows refused because another
// program has it (or a file in it) open into an *InUseError.
func inUse(path string, err error) error {
	if errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return &InUseError{Path: path, Err: err}
	}
	return err
}
