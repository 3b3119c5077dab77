//go:build !windows

package atomicfile

import (
	"fmt"
	"os"
	"syscall"
)

// SyncDir fsyncs a directory so that renames and removals in it survive a
// power loss.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// replace renames from over to: rename(2) replaces a file atomically.
func replace(from, to string) error { return os.Rename(from, to) }

// RenameDir renames the folder from to to, where to is missing or an
// empty folder, which rename(2) replaces in one step (os.Rename refuses
// to replace a folder). A folder at to that is not empty is an error.
func RenameDir(from, to string) error {
	if err := syscall.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
