package reload

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// ErrUnsupportedFile is matched (errors.Is) when a skill folder holds
// something other than files, directories and symlinks (a socket, a FIFO, a
// device), which a skill version cannot record.
var ErrUnsupportedFile = errors.New("unsupported file type")

// ErrLinkedFolder is matched (errors.Is) when a skill folder in a target is
// a symbolic link (a dotfiles setup links ~/.claude/skills/NAME to a
// folder kept elsewhere). Export, status and capture leave such a folder
// alone and report it: writing through the link would change files
// outside the target, and replacing the link would break the setup.
var ErrLinkedFolder = errors.New("skill folder is a symbolic link")

// ReadDir reads the skill folder dir into files (with content, size and blob
// id, sorted by path), the way git would record it:
// symlinks are read as links (never followed), a file is Executable when its
// owner execute bit is set, empty directories vanish, and Ignored files are
// skipped. A missing dir gives an error matching fs.ErrNotExist.
func ReadDir(dir string) ([]skillfs.File, error) {
	info, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(dir)
		return nil, fmt.Errorf("%s: %w (to %s)", dir, ErrLinkedFolder, target)
	}
	if !info.IsDir() {
		what := "a file"
		if !info.Mode().IsRegular() {
			what = fmt.Sprintf("%s (%s)", ErrUnsupportedFile, info.Mode().Type())
		}
		return nil, fmt.Errorf("%s: not a skill folder but %s", dir, what)
	}
	var files []skillfs.File
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
		if skillfs.Ignored(rel) {
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
			files = append(files, skillfs.File{Path: rel, Mode: skillfs.Symlink, Size: int64(len(target)), ID: skillfs.BlobID([]byte(target)), Data: []byte(target)})
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
	skillfs.Sort(files)
	return files, nil
}

func readFile(p, rel string) (skillfs.File, error) {
	info, err := os.Lstat(p)
	if err != nil {
		return skillfs.File{}, err
	}
	// Only a regular file, opened without blocking: a FIFO put in the
	// target's folder after the walk listed it is refused, not waited on.
	f, err := safefile.Open(p, safefile.Options{NoFollow: true})
	if err != nil {
		return skillfs.File{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return skillfs.File{}, err
	}
	kind := skillfs.Regular
	if info.Mode()&0o100 != 0 {
		kind = skillfs.Executable
	}
	return skillfs.File{Path: rel, Mode: kind, Size: int64(len(data)), ID: skillfs.BlobID(data), Data: data}, nil
}

// ReadTree reads the skill folder dir (see ReadDir) and returns its Tree.
func ReadTree(dir string) (*Tree, error) {
	files, err := ReadDir(dir)
	if err != nil {
		return nil, err
	}
	return NewTree(files)
}
