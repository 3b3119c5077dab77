//go:build unix

package gitdb

import (
	"os"
	"syscall"
)

// mapFile maps a file read-only, as git maps pack indexes and packed-refs:
// a lookup then touches the pages it reads instead of reading the whole
// file (8 MB of index at 50,000 skills). The files mapped are never
// rewritten in place (they are replaced by rename), so the mapping stays
// valid until unmap. Empty files and failed maps fall back to a read.
func mapFile(path string) (data []byte, unmap func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := info.Size()
	if size > 0 && size == int64(int(size)) {
		if m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
			return m, func() { syscall.Munmap(m) }, nil
		}
	}
	data, err = os.ReadFile(path)
	return data, func() {}, err
}

// mapPack maps an open pack read-only, as git does: an entry is then
// inflated straight from memory, without a read call per object. Packs
// are written once and replaced, never rewritten in place, and a mapping
// outlives the file's removal. It returns nil where the map fails; the
// pack is then read with positioned reads.
func mapPack(f *os.File, size int64) ([]byte, func()) {
	if size <= 0 || size != int64(int(size)) {
		return nil, nil
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return m, func() { syscall.Munmap(m) }
}
