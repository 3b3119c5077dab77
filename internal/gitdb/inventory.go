package gitdb

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/atomicfile"
)

// ListLoose returns every loose object of the repository at gitDir with
// its modification time.
func ListLoose(gitDir string) (map[ID]time.Time, error) {
	out := map[ID]time.Time{}
	root := filepath.Join(gitDir, "objects")
	dirs, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(root, d.Name()))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			h, ok := parseID(d.Name() + e.Name())
			if !ok {
				continue
			}
			if info, err := e.Info(); err == nil {
				out[h] = info.ModTime()
			}
		}
	}
	return out, nil
}

// RemoveStaleTemps deletes the temporary files that crashed writers left
// in the repository at gitDir (tmp_obj_, tmp_pack_, tmp_idx_ and
// atomicfile's), and indexes without a pack, once older than grace.
func RemoveStaleTemps(gitDir string, now time.Time, grace time.Duration) {
	filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		name := d.Name()
		stale := strings.HasPrefix(name, "tmp_obj_") || strings.HasPrefix(name, "tmp_pack_") ||
			strings.HasPrefix(name, "tmp_idx_") || strings.HasPrefix(name, atomicfile.TempPrefix)
		if strings.HasSuffix(name, ".idx") && strings.HasPrefix(name, "pack-") {
			if _, err := os.Stat(strings.TrimSuffix(p, ".idx") + ".pack"); errors.Is(err, fs.ErrNotExist) {
				stale = true
			}
		}
		if !stale {
			return nil
		}
		if info, err := d.Info(); err == nil && now.Sub(info.ModTime()) >= grace {
			os.RemoveAll(p)
		}
		return nil
	})
}
