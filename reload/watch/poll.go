package watch

import (
	"encoding/binary"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// fingerprints stats every skill folder and returns a fingerprint of each:
// names, kinds, modes, sizes, modification times and inode numbers of
// everything in it that is not Ignored. It reads no file contents; the
// worker compares contents once a changed folder settles.
func (w *Watcher) fingerprints() map[string]uint64 {
	out := map[string]uint64{}
	for _, dir := range w.skillDirs() {
		out[dir] = fingerprint(dir)
	}
	return out
}

func fingerprint(dir string) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	num := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	walkFollowingRoot(dir, func(p string, d fs.DirEntry) error {
		rel, _ := filepath.Rel(dir, p)
		if rel != "." && skillfs.Ignored(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		h.Write([]byte(rel))
		h.Write([]byte{0})
		num(uint64(info.Mode()))
		if !d.IsDir() {
			num(uint64(info.Size()))
			num(uint64(info.ModTime().UnixNano()))
			num(inode(info))
		}
		return nil
	})
	return h.Sum64()
}

// poll compares fresh fingerprints with the last ones and marks every skill
// folder that changed, appeared or disappeared.
func (w *Watcher) poll() {
	now := time.Now()
	cur := w.fingerprints()
	for dir, fp := range cur {
		if old, ok := w.stamps[dir]; !ok || old != fp {
			w.mark(dir, now)
		}
	}
	for dir := range w.stamps {
		if _, ok := cur[dir]; !ok {
			w.mark(dir, now)
		}
	}
	w.stamps = cur
}

// walkFollowingRoot walks dir like filepath.WalkDir, except that when dir
// itself is a symlink to a folder (a skill linked into an agent's folder,
// or a linked skills folder) it walks the folder it points to. Paths given
// to fn are under dir either way, so inotify, which follows the link, names
// events the same. Errors are skipped: what cannot be read now is seen by a
// later rescan.
func walkFollowingRoot(dir string, fn func(p string, d fs.DirEntry) error) {
	real := resolveDir(dir)
	filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(real, p)
		if err != nil {
			return nil
		}
		return fn(filepath.Join(dir, rel), d)
	})
}

// resolveDir follows dir if it is a symlink, or returns it unchanged.
func resolveDir(dir string) string {
	if info, err := os.Lstat(dir); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return real
		}
	}
	return dir
}

func isDirOrLinkToDir(p string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}
