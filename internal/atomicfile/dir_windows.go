//go:build windows

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// SyncDir checks that dir is a folder and syncs nothing: Windows cannot
// flush a folder (FlushFileBuffers on a folder's handle is refused), and
// NTFS journals its folder entries itself. A rename is made durable where
// it happens instead (replace asks MoveFileEx to write through).
func SyncDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("sync %s: not a folder", dir)
	}
	return nil
}

// replace renames from over to with MoveFileEx(MOVEFILE_REPLACE_EXISTING |
// MOVEFILE_WRITE_THROUGH): the rename is on disk when it returns, which is
// what SyncDir does for a rename on Unix. A file that another program holds
// open without sharing deletion cannot be replaced: that is an error here
// (ERROR_ACCESS_DENIED or ERROR_SHARING_VIOLATION), and to stays as it was.
func replace(from, to string) error {
	return moveFile(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH)
}

// RenameDir renames the folder from to to, where to is missing or an
// empty folder. Windows cannot rename over a folder: an empty one at to is
// removed first (a folder that is not empty is an error and stays), then
// from is renamed without replacing, so a folder made at to in between
// is not replaced either.
func RenameDir(from, to string) error {
	t, err := windows.UTF16PtrFromString(longPath(to))
	if err == nil {
		err = windows.RemoveDirectory(t) // only an empty folder; never a file
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return moveFile(from, to, windows.MOVEFILE_WRITE_THROUGH)
}
