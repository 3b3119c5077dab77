package folderscan

import (
	"io/fs"
	"syscall"
)

// entryOf is the stat data the stat cache compares (Linux field names), and
// false when info carries none (nil, or not from the file system).
func entryOf(info fs.FileInfo) (statEntry, bool) {
	if info == nil {
		return statEntry{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return statEntry{}, false
	}
	return statEntry{
		size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
		ino: st.Ino, mode: st.Mode,
	}, true
}
