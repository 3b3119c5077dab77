//go:build !unix

package gitdb

import "os"

// mapFile reads a file whole where memory maps are not used.
func mapFile(path string) (data []byte, unmap func(), err error) {
	data, err = os.ReadFile(path)
	return data, func() {}, err
}
