//go:build !unix && !windows

package safefile

import (
	"io/fs"
	"os"
)

// openNonblock opens path; systems without FIFOs in the file system need
// no non-blocking open. With noFollow, a symbolic link is refused by an
// Lstat first.
func openNonblock(path string, noFollow bool) (*os.File, error) {
	if noFollow {
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrInvalid}
		}
	}
	return os.Open(path)
}

func clearNonblock(*os.File) error { return nil }
