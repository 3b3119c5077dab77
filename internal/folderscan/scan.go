package folderscan

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Scan reads the skill folder dir into files, sorted by path, the way git
// would record it; it is the one reader of a skill folder on disk (add,
// sync's local plugins, export's check of an agent's copy, adopt). What
// skillfs.Ignored reports (the one rule of what is never part of a skill)
// is left out, and empty folders vanish. A regular file is Executable when
// its owner's execute bit is set, as git decides. Regular files are read
// and hashed unless cache (which may be nil) knows them unchanged, in
// which case only ID is set; the cache also spares listing folders whose
// stat data did not change. Files larger than limits.MaxFileSize are not
// read (only Size is set), and the scan stops after limits.MaxFiles+1
// files ([NoLimits] reads everything). Symlinks are read as links, never
// followed (Data = target), and special files listed with mode
// skillfs.Special, so that the caller names them: the safety check
// rejects both kinds it cannot store. A path past a bound of a tree's
// shape (skillfs.MaxDepth, MaxPathBytes) ends the scan with a
// *skillfs.BoundError before the walk enters it.
func Scan(dir string, limits skillfs.Limits, cache *StatCache) ([]skillfs.File, error) {
	return scan(dir, limits, cache, os.Lstat)
}

// NoLimits makes Scan read every file, whatever its size or their number:
// for a folder that must be compared byte for byte, such as an agent's
// copy of a skill that export checks against the store.
var NoLimits = skillfs.Limits{MaxFileSize: math.MaxInt64 - 1, MaxFiles: math.MaxInt}

// scan is Scan with the lstat of the folder's entries given: a PluginFS
// passes one that reuses what reading the plugin's layout already lstat-ed.
func scan(dir string, limits skillfs.Limits, cache *StatCache, lstat func(string) (fs.FileInfo, error)) ([]skillfs.File, error) {
	if limits.MaxFiles == 0 {
		limits = skillfs.DefaultLimits
	}
	var files []skillfs.File
	var walk func(abs, rel string, depth int, dirInfo fs.FileInfo) error
	walk = func(abs, rel string, depth int, dirInfo fs.FileInfo) error {
		entries, err := listDir(abs, dirInfo, cache)
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name
			if len(files) > limits.MaxFiles {
				return nil
			}
			if skillfs.IgnoredEntry(name, e.Type.IsDir()) {
				continue // the one ignore rule, applied a step at a time
			}
			r, err := skillfs.ChildPath(rel, name, depth)
			if err != nil {
				return err // a path no store holds: the walk goes no deeper
			}
			p := filepath.Join(abs, name)
			info, err := lstat(p)
			if err != nil {
				return err
			}
			mode := info.Mode()
			switch {
			case mode.IsDir():
				if err := walk(p, r, depth+1, info); err != nil {
					return err
				}
			case mode&os.ModeSymlink != 0:
				target, err := os.Readlink(p)
				if err != nil {
					return err
				}
				files = append(files, skillfs.File{Path: r, Mode: skillfs.Symlink, Data: []byte(target), Size: int64(len(target)), ID: skillfs.BlobID([]byte(target))})
			case mode.IsRegular():
				f := skillfs.File{Path: r, Mode: skillfs.Regular, Size: info.Size()}
				if mode&0o100 != 0 {
					f.Mode = skillfs.Executable
				}
				if f.Size > limits.MaxFileSize {
					files = append(files, f)
					continue
				}
				if h, ok := cache.Lookup(p, info); ok {
					f.ID = h
				} else {
					start := time.Now()
					if f.Data, err = readFileLimited(p, limits.MaxFileSize); err != nil {
						return err
					}
					f.Size = int64(len(f.Data))
					f.ID = skillfs.BlobID(f.Data)
					cache.Record(p, info, f.ID, start)
				}
				files = append(files, f)
			default:
				files = append(files, skillfs.File{Path: r, Mode: skillfs.Special, Size: info.Size()})
			}
		}
		return nil
	}
	var dirInfo fs.FileInfo
	if cache != nil {
		dirInfo, _ = os.Stat(dir)
	}
	if err := walk(dir, "", 1, dirInfo); err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	skillfs.Sort(files)
	return files, nil
}

// listDir returns the entries of the folder abs, sorted by name, from
// cache when the folder's stat data info (taken before this call) is
// unchanged since it was last listed.
func listDir(abs string, info fs.FileInfo, cache *StatCache) ([]DirName, error) {
	if entries, ok := cache.LookupDir(abs, info); ok {
		return entries, nil
	}
	start := time.Now()
	list, err := os.ReadDir(abs)
	if err != nil {
		return nil, err
	}
	cache.RecordDir(abs, info, list, start)
	entries := make([]DirName, len(list))
	for i, e := range list {
		entries[i] = DirName{Name: e.Name(), Type: e.Type()}
	}
	return entries, nil
}

// LoadData reads the content of the regular files of a Scan result that
// have none loaded yet (those the stat cache vouched for), skipping
// oversized ones.
func LoadData(dir string, files []skillfs.File, limits skillfs.Limits) error {
	if limits.MaxFiles == 0 {
		limits = skillfs.DefaultLimits
	}
	for i := range files {
		f := &files[i]
		if f.Data != nil || (f.Mode != skillfs.Regular && f.Mode != skillfs.Executable) || f.Size > limits.MaxFileSize {
			continue
		}
		data, err := readFileLimited(filepath.Join(dir, filepath.FromSlash(f.Path)), limits.MaxFileSize)
		if err != nil {
			return fmt.Errorf("read %s: %w", filepath.Join(dir, f.Path), err)
		}
		f.Data, f.Size, f.ID = data, int64(len(data)), skillfs.BlobID(data)
	}
	return nil
}

// readFileLimited reads at most limit+1 bytes, so a file that grows while
// being read cannot exhaust memory. It opens only a regular file, without
// blocking: a FIFO swapped in after the walk's lstat is refused, not waited on.
func readFileLimited(path string, limit int64) ([]byte, error) {
	f, err := safefile.Open(path, safefile.Options{NoFollow: true})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if info, err := f.Stat(); err == nil && info.Size() <= limit {
		// ReadFrom wants MinRead bytes free before each read: with them
		// the buffer is not doubled at the end of the file, which a bulk
		// import, holding many files at once, would pay twice over.
		b.Grow(int(info.Size()) + bytes.MinRead)
	}
	_, err = io.Copy(&b, io.LimitReader(f, limit+1))
	if b.Len() == 0 {
		return []byte{}, err
	}
	return b.Bytes(), err
}
