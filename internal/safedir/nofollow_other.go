//go:build !unix && !windows

package safedir

import "os"

// openNoFollow opens path; this system has no open that refuses a link,
// so the caller's check of the opened file is the only one after the Lstat.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}

// inUse returns err: only Windows refuses to rename what is open.
func inUse(_ string, err error) error { return err }
