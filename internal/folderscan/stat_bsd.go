//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package folderscan

import (
	"io/fs"
	"syscall"
)

// entryOf is the stat data the stat cache compares (BSD and macOS field
// names), and false when info carries none.
func entryOf(info fs.FileInfo) (statEntry, bool) {
	if info == nil {
		return statEntry{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return statEntry{}, false
	}
	return statEntry{
		size: st.Size, mtime: st.Mtimespec.Nano(), ctime: st.Ctimespec.Nano(),
		ino: uint64(st.Ino), mode: uint32(st.Mode),
	}, true
}
