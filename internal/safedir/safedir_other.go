//go:build !unix

package safedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/skillstore/skillstore/internal/atomicfile"
)

// Dir is a folder. Here (no *at system calls) each operation checks its
// entry with Lstat, then acts by path. A reparse point that is not a
// symbolic link (a junction) has fs.ModeIrregular and no fs.ModeDir, so
// it is refused as a link is.
type Dir struct {
	path string
}

// Open opens the folder at path.
func Open(path string) (*Dir, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%s, not a folder", describe(fi.Mode()))}
	}
	return &Dir{path: path}, nil
}

// Close releases nothing here.
func (d *Dir) Close() error { return nil }

// Sub opens the folder name in d (see the Unix version).
func (d *Dir) Sub(name string) (*Dir, error) {
	m, err := d.Mode(name)
	if err != nil {
		return nil, err
	}
	if m.Type() != fs.ModeDir {
		return nil, d.notPlain(name, m, d.readlink(name), "folder")
	}
	return &Dir{path: d.Join(name)}, nil
}

// MkSub is Sub, creating the folder when missing.
func (d *Dir) MkSub(name string, perm fs.FileMode) (*Dir, error) {
	sub, err := d.Sub(name)
	if !errors.Is(err, fs.ErrNotExist) {
		return sub, err
	}
	if err := os.Mkdir(d.Join(name), perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return d.Sub(name)
}

// Mkdir creates the folder name in d with exactly perm.
func (d *Dir) Mkdir(name string, perm fs.FileMode) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := os.Mkdir(d.Join(name), perm); err != nil {
		return err
	}
	return os.Chmod(d.Join(name), perm)
}

// OpenFile opens the regular file name in d (see the Unix version). The
// open itself follows no link where the system allows (openNoFollow), and
// what it opened is checked again, so a link put there after the Lstat is
// refused too; O_TRUNC applies only once the file is known to be plain.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	m, err := d.Mode(name)
	if err == nil && !m.IsRegular() {
		return nil, d.notPlain(name, m, d.readlink(name), "file")
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := openNoFollow(d.Join(name), flag&^os.O_TRUNC, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = d.notPlain(name, fi.Mode(), d.readlink(name), "file")
	}
	if err == nil && flag&os.O_TRUNC != 0 {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Mode returns the mode of the entry name, without following a link.
func (d *Dir) Mode(name string) (fs.FileMode, error) {
	if err := checkName(name); err != nil {
		return 0, err
	}
	fi, err := os.Lstat(d.Join(name))
	if err != nil {
		return 0, err
	}
	return fi.Mode(), nil
}

func (d *Dir) readlink(name string) string {
	link, _ := os.Readlink(d.Join(name))
	return link
}

// Names lists the entries of d, sorted.
func (d *Dir) Names() ([]string, error) {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	sort.Strings(names)
	return names, nil
}

// Remove removes the entry name of d.
func (d *Dir) Remove(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	return os.Remove(d.Join(name))
}

// RemoveAll removes name and everything in it; links are not followed.
func (d *Dir) RemoveAll(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	return os.RemoveAll(d.Join(name))
}

// Sync syncs nothing here: folders cannot be opened for syncing.
func (d *Dir) Sync() error { return nil }

// Rename moves fromName of from to toName in to.
func Rename(from *Dir, fromName string, to *Dir, toName string) error {
	if err := checkNames(fromName, toName); err != nil {
		return err
	}
	return inUse(from.Join(fromName), os.Rename(from.Join(fromName), to.Join(toName)))
}

// RenameNoReplace is Rename that fails with fs.ErrExist when toName exists
// (atomicfile.RenameNoReplace: one step on Windows, checked just before
// the rename elsewhere).
func RenameNoReplace(from *Dir, fromName string, to *Dir, toName string) error {
	if err := checkNames(fromName, toName); err != nil {
		return err
	}
	return inUse(from.Join(fromName), atomicfile.RenameNoReplace(from.Join(fromName), to.Join(toName)))
}

// Exchange is not available here; callers fall back to two renames.
func Exchange(a *Dir, aName string, b *Dir, bName string) error {
	return ErrExchangeUnsupported
}
