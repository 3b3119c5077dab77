package atomicfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Exchange atomically swaps the files or directories at a and b with
// renamex_np(RENAME_SWAP). It returns ErrExchangeUnsupported where the
// filesystem cannot.
func Exchange(a, b string) error {
	err := unix.RenamexNp(a, b, unix.RENAME_SWAP)
	if isUnsupported(err) {
		return ErrExchangeUnsupported
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}

// RenameNoReplace renames from to to, failing with fs.ErrExist if to exists.
func RenameNoReplace(from, to string) error {
	err := unix.RenamexNp(from, to, unix.RENAME_EXCL)
	if isUnsupported(err) {
		return renameIfAbsent(from, to)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

func isUnsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP)
}

// SyncFS flushes every filesystem (macOS has no per-filesystem sync).
func SyncFS(string) error {
	unix.Sync()
	return nil
}
