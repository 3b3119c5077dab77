package atomicfile

import (
	"errors"
	"io/fs"
	"os"
)

// ErrExchangeUnsupported is returned by Exchange where the kernel or the
// filesystem cannot swap two names atomically; callers fall back to two
// renames and say so.
var ErrExchangeUnsupported = errors.New("atomic exchange not supported")

// renameIfAbsent is the fallback of RenameNoReplace where the kernel has no
// no-replace rename: it checks, then renames (a folder created between the
// two steps can be replaced; callers hold their own lock).
func renameIfAbsent(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
	}
	return os.Rename(from, to)
}
