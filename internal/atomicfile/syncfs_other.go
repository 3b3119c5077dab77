//go:build !unix

package atomicfile

import "os"

// SyncFS syncs only the folder dir: this system has no call that flushes a
// whole filesystem, so files written without their own sync are not made
// durable by it.
func SyncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	_ = f.Sync() // folders cannot be synced everywhere
	return nil
}
