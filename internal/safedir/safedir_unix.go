//go:build unix

package safedir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"

	"golang.org/x/sys/unix"
)

// Dir is an open folder. Its methods are safe for concurrent use; Close it
// once done.
type Dir struct {
	f    *os.File
	path string
}

// Open opens the folder at path. Links in path itself are followed: the
// caller chose it (an agent's skills folder may well be a link); what is
// inside is entered with Sub.
func Open(path string) (*Dir, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%s, not a folder", describe(fi.Mode()))}
	}
	return &Dir{f: f, path: path}, nil
}

// Close closes the folder's handle.
func (d *Dir) Close() error { return d.f.Close() }

func (d *Dir) fd() int { return int(d.f.Fd()) }

// Sub opens the folder name in d. A missing one is an error matching
// fs.ErrNotExist; a symbolic link, a file or anything else there is a
// *NotPlainError.
func (d *Dir) Sub(name string) (*Dir, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	fd, err := unix.Openat(d.fd(), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, d.openError(name, err, "folder")
	}
	return &Dir{f: os.NewFile(uintptr(fd), d.Join(name)), path: d.Join(name)}, nil
}

// MkSub is Sub, creating the folder (perm, less the umask) when missing.
func (d *Dir) MkSub(name string, perm fs.FileMode) (*Dir, error) {
	sub, err := d.Sub(name)
	if !errors.Is(err, fs.ErrNotExist) {
		return sub, err
	}
	if err := unix.Mkdirat(d.fd(), name, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
		return nil, &fs.PathError{Op: "mkdir", Path: d.Join(name), Err: err}
	}
	return d.Sub(name)
}

// Mkdir creates the folder name in d with exactly perm (the umask does
// not apply). An existing entry is an error matching fs.ErrExist.
func (d *Dir) Mkdir(name string, perm fs.FileMode) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := unix.Mkdirat(d.fd(), name, uint32(perm.Perm())); err != nil {
		return &fs.PathError{Op: "mkdir", Path: d.Join(name), Err: err}
	}
	sub, err := d.Sub(name)
	if err != nil {
		return err
	}
	defer sub.Close()
	if err := unix.Fchmod(sub.fd(), uint32(perm.Perm())); err != nil {
		return &fs.PathError{Op: "chmod", Path: sub.path, Err: err}
	}
	return nil
}

// OpenFile opens the regular file name in d with flag (os.O_*) and, when
// it creates it, perm. It never follows a link and never blocks on a FIFO:
// a link, FIFO, socket, device or folder there is a *NotPlainError, and
// nothing was written to it.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	fd, err := unix.Openat(d.fd(), name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, d.openError(name, err, "file")
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: d.Join(name), Err: err}
	}
	if m := fileMode(uint32(st.Mode)); !m.IsRegular() {
		unix.Close(fd)
		return nil, d.notPlain(name, m, "", "file")
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: d.Join(name), Err: err}
	}
	return os.NewFile(uintptr(fd), d.Join(name)), nil
}

// openError turns an error of opening name into a PathError, or a
// *NotPlainError when name exists and is not a want.
func (d *Dir) openError(name string, err error, want string) error {
	if errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "open", Path: d.Join(name), Err: fs.ErrNotExist}
	}
	if m, serr := d.Mode(name); serr == nil {
		if (want == "folder" && !m.IsDir()) || (want == "file" && !m.IsRegular()) {
			return d.notPlain(name, m, d.readlink(name), want)
		}
	}
	return &fs.PathError{Op: "open", Path: d.Join(name), Err: err}
}

// Mode returns the type and permission bits of the entry name, without
// following a link (an error matching fs.ErrNotExist when missing).
func (d *Dir) Mode(name string) (fs.FileMode, error) {
	if err := checkName(name); err != nil {
		return 0, err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			err = fs.ErrNotExist
		}
		return 0, &fs.PathError{Op: "lstat", Path: d.Join(name), Err: err}
	}
	return fileMode(uint32(st.Mode)), nil
}

func fileMode(mode uint32) fs.FileMode {
	m := fs.FileMode(mode & 0o777)
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	return m
}

// readlink returns where the link name points, or "".
func (d *Dir) readlink(name string) string {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(d.fd(), name, buf)
	if err != nil {
		return ""
	}
	return string(buf[:n])
}

// Names lists the entries of d, sorted.
func (d *Dir) Names() ([]string, error) {
	// A handle of its own: reading d's would move its offset for good.
	fd, err := unix.Openat(d.fd(), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil && err != io.EOF {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// Remove removes the file, link or empty folder name in d.
func (d *Dir) Remove(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := removeAt(d.fd(), name); err != nil {
		return &fs.PathError{Op: "remove", Path: d.Join(name), Err: err}
	}
	return nil
}

func removeAt(dirfd int, name string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
		if rerr := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); rerr == nil || !errors.Is(rerr, unix.ENOTDIR) {
			return rerr
		}
	}
	return err
}

// RemoveAll removes name from d and, if it is a folder, everything in it.
// A link anywhere below is removed, never followed. A missing name is not
// an error.
func (d *Dir) RemoveAll(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := removeAllAt(d.fd(), name); err != nil {
		return &fs.PathError{Op: "remove", Path: d.Join(name), Err: err}
	}
	return nil
}

func removeAllAt(dirfd int, name string) error {
	err := removeAt(dirfd, name)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	fd, oerr := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if oerr != nil {
		return err // not a folder: the removal's own error says why
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	for range 3 { // again if something was added meanwhile
		names, rerr := f.Readdirnames(-1)
		if rerr != nil && rerr != io.EOF {
			return rerr
		}
		for _, n := range names {
			if err := removeAllAt(fd, n); err != nil {
				return err
			}
		}
		err = unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.ENOTEMPTY) && !errors.Is(err, unix.EEXIST) {
			return err
		}
		if _, serr := f.Seek(0, io.SeekStart); serr != nil {
			return err
		}
	}
	return err
}

// Sync makes the renames and removals in d durable.
func (d *Dir) Sync() error {
	if err := d.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", d.path, err)
	}
	return nil
}

// Rename moves the entry fromName of from to toName in to, replacing a
// file there (as rename(2) does). Neither name is followed if a link.
func Rename(from *Dir, fromName string, to *Dir, toName string) error {
	if err := checkNames(fromName, toName); err != nil {
		return err
	}
	if err := unix.Renameat(from.fd(), fromName, to.fd(), toName); err != nil {
		return &os.LinkError{Op: "rename", Old: from.Join(fromName), New: to.Join(toName), Err: err}
	}
	return nil
}

// RenameNoReplace is Rename that fails with an error matching fs.ErrExist
// when toName exists, so a folder someone created meanwhile is never
// replaced.
func RenameNoReplace(from *Dir, fromName string, to *Dir, toName string) error {
	if err := checkNames(fromName, toName); err != nil {
		return err
	}
	err := renameNoReplace(from.fd(), fromName, to.fd(), toName)
	if errors.Is(err, errUnsupported) {
		// Checked, then renamed: callers hold their own lock.
		if _, serr := to.Mode(toName); serr == nil {
			err = unix.EEXIST
		} else {
			err = unix.Renameat(from.fd(), fromName, to.fd(), toName)
		}
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from.Join(fromName), New: to.Join(toName), Err: err}
	}
	return nil
}

// Exchange swaps the entries aName of a and bName of b atomically: at every
// instant each name holds one complete tree. It returns
// ErrExchangeUnsupported where the filesystem cannot.
func Exchange(a *Dir, aName string, b *Dir, bName string) error {
	if err := checkNames(aName, bName); err != nil {
		return err
	}
	err := exchange(a.fd(), aName, b.fd(), bName)
	if errors.Is(err, errUnsupported) {
		return ErrExchangeUnsupported
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a.Join(aName), New: b.Join(bName), Err: err}
	}
	return nil
}
