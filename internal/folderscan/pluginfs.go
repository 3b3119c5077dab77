package folderscan

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// PluginFS is a local plugin folder as reading its layout sees it. For a
// path whose parent is known to be a real folder (reached from the root
// through folders, no symlink on the way), Lstat is one lstat of the full
// path instead of os.Root's open of each folder on the way, and ReadDir of
// such a folder comes from the stat cache when the folder's stat data is
// unchanged: for a plugin of many skills these are most of the reading.
// Everything else, and any error (so its text stays the same), goes
// through os.Root.
type PluginFS struct {
	pluginfmt.PluginFS
	dir   string
	cache *StatCache      // may be nil
	dirs  map[string]bool // slash paths known to be folders, no symlink on the way
	// seen keeps what Lstat found by absolute path, for the scan of the
	// skill folders that follows (each SKILL.md is lstat-ed by both).
	seen map[string]fs.FileInfo
}

// NewPluginFS wraps root, the os.Root file system of the plugin folder dir.
// cache may be nil; when not, it must be safe for concurrent use if other
// goroutines use it too.
func NewPluginFS(root pluginfmt.PluginFS, dir string, cache *StatCache) *PluginFS {
	return &PluginFS{PluginFS: root, dir: dir, cache: cache, dirs: map[string]bool{".": true}, seen: map[string]fs.FileInfo{}}
}

// ScanSkill is Scan of the skill folder dir (an absolute path inside the
// plugin folder), reusing what reading the layout already lstat-ed.
func (f *PluginFS) ScanSkill(dir string, limits skillfs.Limits) ([]skillfs.File, error) {
	return scan(dir, limits, f.cache, f.lstatOnce)
}

// lstatOnce is os.Lstat, answered from seen where Lstat already looked.
func (f *PluginFS) lstatOnce(abs string) (fs.FileInfo, error) {
	if info, ok := f.seen[abs]; ok {
		delete(f.seen, abs)
		return info, nil
	}
	return os.Lstat(abs)
}

func (f *PluginFS) Lstat(name string) (fs.FileInfo, error) {
	if fs.ValidPath(name) && name != "." && f.dirs[path.Dir(name)] {
		abs := f.abs(name)
		if info, err := os.Lstat(abs); err == nil {
			if info.IsDir() {
				f.dirs[name] = true
			}
			if f.seen != nil {
				f.seen[abs] = info
			}
			return info, nil
		}
	}
	return f.PluginFS.Lstat(name)
}

func (f *PluginFS) ReadDir(name string) ([]fs.DirEntry, error) {
	known := f.dirs[name]
	var dirInfo fs.FileInfo
	if known && f.cache != nil {
		dirInfo, _ = os.Stat(f.abs(name))
		if cached, ok := f.cache.LookupDir(f.abs(name), dirInfo); ok {
			entries := make([]fs.DirEntry, len(cached))
			for i, e := range cached {
				entries[i] = cachedDirEntry{name: e, dir: f.abs(name)}
			}
			f.learnDirs(name, entries)
			return entries, nil
		}
	}
	start := time.Now()
	entries, err := f.PluginFS.ReadDir(name)
	if err == nil && known {
		f.cache.RecordDir(f.abs(name), dirInfo, entries, start)
		f.learnDirs(name, entries)
	}
	return entries, err
}

func (f *PluginFS) abs(name string) string { return filepath.Join(f.dir, filepath.FromSlash(name)) }

func (f *PluginFS) learnDirs(name string, entries []fs.DirEntry) {
	for _, e := range entries {
		if e.IsDir() {
			f.dirs[path.Join(name, e.Name())] = true
		}
	}
}

// cachedDirEntry is a folder entry known from the stat cache.
type cachedDirEntry struct {
	name DirName
	dir  string
}

func (e cachedDirEntry) Name() string      { return e.name.Name }
func (e cachedDirEntry) IsDir() bool       { return e.name.Type.IsDir() }
func (e cachedDirEntry) Type() fs.FileMode { return e.name.Type }
func (e cachedDirEntry) Info() (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(e.dir, e.name.Name))
}
