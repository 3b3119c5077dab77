//go:build unix

package watch

import (
	"io/fs"
	"syscall"
)

// inode returns the inode number of info's file, so that a file replaced
// by a rename (an editor's save) changes the fingerprint even when its size
// and time do not.
func inode(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
