//go:build !unix

package gitdb

import "os"

// mapFile reads a file whole where memory maps are not used.
func mapFile(path string) (data []byte, unmap func(), err error) {
	data, err = os.ReadFile(path)
	return data, func() {}, err
}

// mapPack does not map packs where memory maps are not used (on Windows a
// mapped file could not be deleted by gc): they are read with positioned
// reads.
func mapPack(f *os.File, size int64) ([]byte, func()) {
	return nil, nil
}
