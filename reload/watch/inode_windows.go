//go:build windows

package watch

import (
	"io/fs"
	"syscall"
)

// inode stands in for an inode number on Windows, whose stat data has
// none: the file's creation time, which a file replaced by a rename
// usually changes. It is weaker than an inode: NTFS gives a file created
// under a name just removed or renamed away (within 15 s) the old file's
// creation time (tunnelling), which is what an editor's save by rename
// does; such a save still changes the size or the last write time unless
// the new content has the old size and the editor copies the old time.
func inode(info fs.FileInfo) uint64 {
	if d, ok := info.Sys().(*syscall.Win32FileAttributeData); ok && d != nil {
		return uint64(d.CreationTime.Nanoseconds())
	}
	return 0
}
