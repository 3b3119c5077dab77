// Package safedir works inside a folder that others can write to as if
// every entry there were ours: a target's bookkeeping folder, which a
// project can commit with links planted in it. A [Dir] is an open
// directory handle; every operation names one entry of it (never a path)
// and never follows a symbolic link in that entry, so a link put where a
// file or folder of ours should be can redirect no write, rename or
// removal: it is refused with a [*NotPlainError] that names it. Folders
// below a Dir are entered with [Dir.Sub], which refuses a link or a file
// in the same way.
//
// On Unix every operation is an *at system call on the directory's file
// descriptor; elsewhere the entry is checked with Lstat before a call by
// path (a change between the two is not caught there). On Windows a
// reparse point counts as a link (a symbolic link, a junction, a mount
// point: each redirects a path), files are opened without following one
// (FILE_FLAG_OPEN_REPARSE_POINT, then the opened entry is checked), names
// Windows cannot hold are refused ([skillfs.CheckWindowsName]), and a
// rename Windows refuses because the entry is open elsewhere is an
// [*InUseError].
package safedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// ErrNotPlain is matched (errors.Is) by a *NotPlainError.
var ErrNotPlain = errors.New("not a plain entry")

// ErrExchangeUnsupported is returned by Exchange where the kernel or the
// filesystem cannot swap two names atomically (the same error as
// atomicfile's, so callers match either).
var ErrExchangeUnsupported = atomicfile.ErrExchangeUnsupported

// NotPlainError refuses an entry that should be a plain folder or file
// skillstore made and is something else: a symbolic link, a FIFO, a
// socket, a device, or a file where a folder belongs (and the reverse).
type NotPlainError struct {
	Path string
	// What says what the entry is ("a symbolic link to /x", "a FIFO").
	What string
	// Want is "folder" or "file".
	Want string
}

func (e *NotPlainError) Error() string {
	return fmt.Sprintf("%s is %s, not a plain %s skillstore made: skillstore neither follows nor replaces it; move it away, then run again", e.Path, e.What, e.Want)
}

// Is makes errors.Is(err, ErrNotPlain) match.
func (e *NotPlainError) Is(target error) bool { return target == ErrNotPlain }

// InUseError reports a rename that Windows refused: another program has
// the entry, or a file in the folder, open without allowing it to be moved
// (an editor, an agent reading a skill, a shell whose working folder it
// is), or the entry cannot be written. A rename either happens or not, so
// the entry is left as it was. Only Windows refuses to move what is open;
// Unix renames it.
type InUseError struct {
	Path string
	Err  error
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("%s could not be moved: another program has it or a file in it open (an editor, an agent, a shell or window in it), or it is not writable (%v); it was left as it was: close that program and run again", e.Path, e.Err)
}

func (e *InUseError) Unwrap() error { return e.Err }

// Path returns the folder's path, as given to Open and Sub.
func (d *Dir) Path() string { return d.path }

// Join returns the path of the entry name in d, for messages and for
// reading a folder's contents that the caller has checked.
func (d *Dir) Join(name string) string { return filepath.Join(d.path, name) }

// checkName refuses a name that is not one entry of a folder: an empty
// name, ".", "..", or one holding a separator or NUL would make an *at
// call walk a path. On Windows a name it cannot hold is refused too: a
// device name would reach the device, "a:b" a hidden stream of a, and
// "a." the entry a.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") || strings.ContainsRune(name, filepath.Separator) {
		return fmt.Errorf("%q is not one entry of a folder", name)
	}
	if runtime.GOOS == "windows" {
		return skillfs.CheckWindowsName(name)
	}
	return nil
}

func checkNames(a, b string) error {
	if err := checkName(a); err != nil {
		return err
	}
	return checkName(b)
}

// describe says what an entry of mode m is, for a NotPlainError.
func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m.IsRegular():
		return "a file"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device"
	case m&fs.ModeIrregular != 0:
		return "a junction or other reparse point" // how Windows reports one that is not a symbolic link
	}
	return "of mode " + m.String()
}

// notPlain builds the error for the entry name of d, which has mode m
// (link is where a symbolic link points).
func (d *Dir) notPlain(name string, m fs.FileMode, link, want string) error {
	is := describe(m)
	if m&fs.ModeSymlink != 0 && link != "" {
		is += " to " + link
	}
	return &NotPlainError{Path: d.Join(name), What: is, Want: want}
}

// OpenBeneath opens the folder rel below root one folder at a time: root
// is opened as Open opens a path (the caller chose it), and each folder of
// rel is entered with Sub, so a symbolic link, a file or anything but a
// plain folder on the way is a *NotPlainError naming it, and nothing past
// it is reached. With create, missing folders are made (perm, less the
// umask); without, a missing one is an error matching fs.ErrNotExist.
// rel is relative and local (filepath.IsLocal); "." is root itself.
//
// A project's target is opened this way from the project's root: a link
// a cloned project holds (.claude -> ~/.claude) is never followed.
func OpenBeneath(root, rel string, create bool, perm fs.FileMode) (*Dir, error) {
	rel = filepath.Clean(filepath.FromSlash(rel))
	if !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s: %q is not a folder inside it", root, rel)
	}
	d, err := Open(root)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return d, nil
	}
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		var sub *Dir
		if create {
			sub, err = d.MkSub(name, perm)
		} else {
			sub, err = d.Sub(name)
		}
		d.Close()
		if err != nil {
			return nil, err
		}
		d = sub
	}
	return d, nil
}

// ReadFile reads the regular file name, up to limit bytes (more is an
// error wrapping safefile.ErrTooLarge). A link, FIFO or folder there is a
// *NotPlainError.
func (d *Dir) ReadFile(name string, limit int64) ([]byte, error) {
	f, err := d.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return safefile.ReadAll(f, d.Join(name), limit)
}

var tempSeq atomic.Uint64

// WriteFile replaces the file name in d with data atomically: a reader,
// or a process started after a crash, sees the old content or the new,
// never a mix. The data goes to a new temporary file in d (named with
// atomicfile.TempPrefix), is synced, renamed over name, and d is synced.
// A folder or anything else at name is refused by the rename.
func (d *Dir) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := checkName(name); err != nil {
		return err
	}
	tmp := atomicfile.TempPrefix + name + "-" + strconv.Itoa(os.Getpid()) + "-" +
		strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.FormatUint(tempSeq.Add(1), 36)
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", d.Join(name), err)
	}
	err = writeSynced(f, data, perm)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.renameFile(tmp, name)
	}
	if err != nil {
		_ = d.Remove(tmp)
		return fmt.Errorf("write %s: %w", d.Join(name), err)
	}
	return d.Sync()
}

func writeSynced(f *os.File, data []byte, perm fs.FileMode) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil { // not subject to the umask
		return err
	}
	return f.Sync()
}

// renameFile renames tmp over name in d, refusing to replace anything but
// a regular file (a folder, a link planted there stays as it is).
func (d *Dir) renameFile(tmp, name string) error {
	if m, err := d.Mode(name); err == nil && !m.IsRegular() {
		return d.notPlain(name, m, d.readlink(name), "file")
	}
	return Rename(d, tmp, d, name)
}
