package safedir

import (
	"errors"

	"golang.org/x/sys/unix"
)

// errUnsupported stands for the kernel's "this filesystem cannot" answers.
var errUnsupported = errors.New("unsupported")

func renameNoReplace(fromfd int, from string, tofd int, to string) error {
	return unsupported(unix.Renameat2(fromfd, from, tofd, to, unix.RENAME_NOREPLACE))
}

func exchange(afd int, a string, bfd int, b string) error {
	return unsupported(unix.Renameat2(afd, a, bfd, b, unix.RENAME_EXCHANGE))
}

func unsupported(err error) error {
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errUnsupported
	}
	return err
}
