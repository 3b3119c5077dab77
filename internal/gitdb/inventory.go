package gitdb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/idxfile"

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

// PackInfo is a pack of a repository and the objects its index lists.
type PackInfo struct {
	ID      ID        // the pack's checksum, in its name
	Base    string    // path without extension
	ModTime time.Time // of the .pack file
	Objects []ID
}

// ListPacks reads the index of every pack of the repository at gitDir
// that has a .pack file; a pack without a readable index is an error.
func ListPacks(gitDir string) ([]PackInfo, error) {
	dir := filepath.Join(gitDir, "objects", "pack")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []PackInfo
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "pack-") || !strings.HasSuffix(name, ".pack") {
			continue
		}
		h, ok := parseID(strings.TrimSuffix(strings.TrimPrefix(name, "pack-"), ".pack"))
		if !ok {
			continue
		}
		base := filepath.Join(dir, strings.TrimSuffix(name, ".pack"))
		info, err := e.Info()
		if err != nil {
			return nil, err
		}
		p := PackInfo{ID: h, Base: base, ModTime: info.ModTime()}
		f, err := os.Open(base + ".idx")
		if err != nil {
			return nil, fmt.Errorf("pack %s has no readable index: %w", name, err)
		}
		idx := idxfile.NewMemoryIndex()
		err = idxfile.NewDecoder(f).Decode(idx)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("pack index %s: %w", base+".idx", err)
		}
		iter, err := idx.Entries()
		if err != nil {
			return nil, err
		}
		for {
			en, err := iter.Next()
			if err != nil {
				break
			}
			p.Objects = append(p.Objects, ID(en.Hash))
		}
		iter.Close()
		out = append(out, p)
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
