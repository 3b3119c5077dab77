//go:build windows

package atomicfile

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// maxShortPath is where Windows's path limit (MAX_PATH, 260 UTF-16 units
// with the drive and the final NUL; 248 for a folder to be created) starts
// to bite. The os package lengthens the paths it is given itself; the
// calls made here directly need the same.
const maxShortPath = 248

// longPath returns p in the form that lifts the path limit: absolute,
// cleaned, with the \\?\ prefix (\\?\UNC\ for a share). Shorter paths and
// ones already prefixed are returned as they are.
func longPath(p string) string {
	if len(p) < maxShortPath || strings.HasPrefix(p, `\\?\`) || strings.HasPrefix(p, `\\.\`) {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if strings.HasPrefix(abs, `\\`) {
		return `\\?\UNC\` + abs[2:]
	}
	return `\\?\` + abs
}

// moveFile is MoveFileEx of from to to with flags, the paths lengthened;
// errors are *os.LinkError naming both.
func moveFile(from, to string, flags uint32) error {
	f, err := windows.UTF16PtrFromString(longPath(from))
	if err == nil {
		var t *uint16
		if t, err = windows.UTF16PtrFromString(longPath(to)); err == nil {
			err = windows.MoveFileEx(f, t, flags)
		}
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
