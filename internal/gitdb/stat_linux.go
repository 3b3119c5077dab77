package gitdb

import "syscall"

// entryOf is the stat data the stat cache compares (Linux field names).
func entryOf(st *syscall.Stat_t) statEntry {
	return statEntry{
		size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
		ino: st.Ino, mode: st.Mode,
	}
}
