package atomicfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Exchange atomically swaps the files or directories at a and b with
// renameat2(RENAME_EXCHANGE): at every instant each name holds one complete
// tree. It returns ErrExchangeUnsupported where the filesystem cannot.
func Exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if isUnsupported(err) {
		return ErrExchangeUnsupported
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}

// RenameNoReplace renames from to to, failing with fs.ErrExist if to exists,
// so a folder someone created meanwhile is never replaced.
func RenameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if isUnsupported(err) {
		return renameIfAbsent(from, to)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

func isUnsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP)
}

// SyncFS flushes the filesystem holding dir: one call makes every staged
// file durable before any folder is switched, instead of an fsync per file.
func SyncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
