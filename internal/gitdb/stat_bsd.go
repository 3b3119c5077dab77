//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package gitdb

import "syscall"

// entryOf is the stat data the stat cache compares (BSD and macOS field names).
func entryOf(st *syscall.Stat_t) statEntry {
	return statEntry{
		size: st.Size, mtime: st.Mtimespec.Nano(), ctime: st.Ctimespec.Nano(),
		ino: uint64(st.Ino), mode: uint32(st.Mode),
	}
}
