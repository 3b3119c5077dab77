//go:build !linux

package reload

import "golang.org/x/sys/unix"

// exchange is not available outside Linux; export falls back to two renames.
func exchange(a, b string) error { return errExchangeUnsupported }

func renameNoReplace(from, to string) error { return renameIfAbsent(from, to) }

func syncFS(string) error {
	unix.Sync()
	return nil
}
