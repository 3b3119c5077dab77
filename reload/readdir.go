package reload

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillstore/skillstore/internal/folderscan"
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

// ReadDir reads the skill folder dir of a target into files (with
// content, size and blob id, sorted by path) with the one reader of a
// skill folder, folderscan.Scan, which records it the way git would
// (symlinks read as links, never followed; a file Executable when its
// owner execute bit is set; empty directories vanish; Ignored files
// skipped). Every file is read, whatever its size: export compares the
// folder with the store byte for byte. On top of the scan, what export
// cannot record is refused: dir itself being a symlink (ErrLinkedFolder)
// or not a folder, and a special file in it (ErrUnsupportedFile). A
// missing dir gives an error matching fs.ErrNotExist.
func ReadDir(dir string) ([]skillfs.File, error) { return readDirCached(dir, nil) }

// readTreeCached is [ReadTree] with a stat cache (nil: none; see
// [StatusCached]): the files the cache vouches for carry their blob id and
// no content.
func readTreeCached(dir string, cache *folderscan.StatCache) (*Tree, error) {
	files, err := readDirCached(dir, cache)
	if err != nil {
		return nil, err
	}
	return NewTree(files)
}

func readDirCached(dir string, cache *folderscan.StatCache) ([]skillfs.File, error) {
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
	files, err := folderscan.Scan(dir, folderscan.NoLimits, cache)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.Mode == skillfs.Special {
			p := filepath.Join(dir, filepath.FromSlash(f.Path))
			var typ fs.FileMode
			if info, err := os.Lstat(p); err == nil {
				typ = info.Mode().Type()
			}
			return nil, fmt.Errorf("%s: %w (%s)", p, ErrUnsupportedFile, typ)
		}
	}
	return files, nil
}

// ReadTree reads the skill folder dir (see ReadDir) and returns its Tree.
func ReadTree(dir string) (*Tree, error) {
	files, err := ReadDir(dir)
	if err != nil {
		return nil, err
	}
	return NewTree(files)
}
