package reload

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrUnsupportedFile is matched (errors.Is) when a skill folder holds
// something other than files, directories and symlinks (a socket, a FIFO, a
// device), which a skill version cannot record.
var ErrUnsupportedFile = errors.New("unsupported file type")

// ReadDir reads the skill folder dir into Files, the way git would record it:
// symlinks are read as links (never followed), a file is Executable when its
// owner execute bit is set, empty directories vanish, and Ignored files are
// skipped. A missing dir gives an error matching fs.ErrNotExist.
func ReadDir(dir string) ([]File, error) {
	info, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	var files []File
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if Ignored(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch t := d.Type(); {
		case t.IsDir():
			return nil
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			files = append(files, File{Path: rel, Kind: Symlink, Data: []byte(target)})
		case t.IsRegular():
			f, err := readFile(p, rel)
			if err != nil {
				return err
			}
			files = append(files, f)
		default:
			return fmt.Errorf("%s: %w (%s)", p, ErrUnsupportedFile, t)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

func readFile(p, rel string) (File, error) {
	info, err := os.Lstat(p)
	if err != nil {
		return File{}, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return File{}, err
	}
	kind := Regular
	if info.Mode()&0o100 != 0 {
		kind = Executable
	}
	return File{Path: rel, Kind: kind, Data: data}, nil
}

// ReadTree reads the skill folder dir (see ReadDir) and returns its Tree.
func ReadTree(dir string) (*Tree, error) {
	files, err := ReadDir(dir)
	if err != nil {
		return nil, err
	}
	return NewTree(files)
}
