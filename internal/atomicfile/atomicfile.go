// Package atomicfile writes files so that a reader, or a process started after
// a crash, sees either the old content or the new content, never a mix: the
// data goes to a temporary file in the same directory, is synced, renamed over
// the target, and the directory is synced so the rename itself is durable
// (on Windows, which cannot sync a folder, the rename writes through).
//
// Folders are switched with Exchange where the system can swap two names
// in one step (Linux renameat2, macOS renamex_np); elsewhere, Windows
// included, it returns ErrExchangeUnsupported and callers rename twice.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// TempPrefix starts the name of every temporary file this package creates.
// Git skips names starting with a dot when it reads ref directories, so a
// temporary file left behind by a crash in a refs directory is never mistaken
// for a ref.
const TempPrefix = ".tmp-"

// WriteFile atomically replaces path with data, creating it with perm if it
// does not exist. It is not safe against concurrent writers of the same path:
// callers serialise writes (skillstore holds the store's write lock).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, TempPrefix+base+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := replace(tmpName, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	return SyncDir(dir)
}
