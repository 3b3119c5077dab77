//go:build !windows

package reload

import (
	"os"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// writeFile writes a staged file. It is not synced: one filesystem sync
// makes every staged file durable before any folder is switched (run).
func writeFile(p string, data []byte, perm os.FileMode) error {
	return os.WriteFile(p, data, perm)
}

// writeLink makes the symbolic link f at p, as the store holds it.
func writeLink(p string, f skillfs.File, _ []skillfs.File) (string, error) {
	return "", os.Symlink(string(f.Data), p)
}
