//go:build windows

package folderscan

import (
	"io/fs"
	"syscall"
)

// entryOf is the stat data the stat cache compares on Windows, and false
// when info carries none. What an lstat returns there has no inode and no
// change time: the entry holds the size, the last write time, the creation
// time in ctime's place, and the file attributes in mode's.
//
// What that weakens: without the inode, a file replaced by another (an
// editor's save by rename) that has the same size and the same last write
// time to the 100 ns is taken for unchanged, and NTFS gives a file created
// under a name just removed the old file's creation time (tunnelling), so
// the creation time does not tell them apart either. Tools that copy the
// modification time with a file (restores, archives, cp -p in a
// Unix-like shell) can do that; an edit cannot, since writing a file sets
// its last write time. A folder's last write time changes when an entry
// is created, removed or renamed in it, as on Unix.
func entryOf(info fs.FileInfo) (statEntry, bool) {
	if info == nil {
		return statEntry{}, false
	}
	d, ok := info.Sys().(*syscall.Win32FileAttributeData)
	if !ok || d == nil {
		return statEntry{}, false
	}
	return statEntry{
		size:  int64(d.FileSizeHigh)<<32 | int64(d.FileSizeLow),
		mtime: d.LastWriteTime.Nanoseconds(),
		ctime: d.CreationTime.Nanoseconds(),
		mode:  d.FileAttributes,
	}, true
}
