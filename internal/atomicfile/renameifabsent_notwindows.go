//go:build !windows

package atomicfile

import (
	"io/fs"
	"os"
)

// renameIfAbsent is the fallback of RenameNoReplace where the kernel has no
// no-replace rename: it checks, then renames (a folder created between the
// two steps can be replaced; callers hold their own lock).
func renameIfAbsent(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
	}
	return os.Rename(from, to)
}
