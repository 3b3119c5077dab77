// Package safefile reads files from places skillstore does not own: another
// installer's lock file, a cloned project's records, a plugin's manifest, a
// target's bookkeeping. Such a path may name a FIFO (a read would block
// forever), a device such as /dev/zero (a read would never end), or a file far
// larger than any record. Every read here opens without blocking, refuses
// anything but a regular file, and stops at a size limit, with an error that
// names the file.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Limits for the kinds of file skillstore reads from outside. They are far
// above what real files of each kind hold and far below what would hurt.
const (
	// RecordLimit bounds a JSON record or lock file (skills-lock.json,
	// installed_plugins.json, exported.json, marketplace.json).
	RecordLimit = 16 << 20
	// ManifestLimit bounds a plugin manifest (plugin.json).
	ManifestLimit = 4 << 20
)

// ErrNotRegular is wrapped when a path names something other than a regular
// file (a folder, FIFO, socket or device).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped when a file is larger than the limit its reader set.
var ErrTooLarge = errors.New("file too large")

// Options choose how a path is opened.
type Options struct {
	// NoFollow refuses a path whose last element is a symbolic link (for
	// files in folders that others can write, where a link would redirect
	// the read). Links in the folders above it are still followed.
	NoFollow bool
}

// Open opens the regular file at path for reading. It never blocks on a FIFO
// and refuses anything but a regular file with an error wrapping
// ErrNotRegular (or, with NoFollow, a symbolic link).
func Open(path string, o Options) (*os.File, error) {
	f, err := openNonblock(path, o.NoFollow)
	if err != nil {
		if o.NoFollow && isLinkErr(path, err) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: a symbolic link", ErrNotRegular)}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, NotRegular(path, fi.Mode())
	}
	if err := clearNonblock(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the regular file at path, refusing it (ErrTooLarge) if it
// holds more than limit bytes. Errors name the path.
func ReadFile(path string, limit int64) ([]byte, error) {
	return ReadFileWith(path, limit, Options{})
}

// ReadFileWith is ReadFile with Options.
func ReadFileWith(path string, limit int64, o Options) ([]byte, error) {
	f, err := Open(path, o)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, limit)
}

// ReadAll reads r up to limit bytes; more is an error wrapping ErrTooLarge
// that names name.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: over %s", ErrTooLarge, Size(limit))}
	}
	return data, nil
}

// Size prints a byte count the way messages show limits: "16 MiB".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// NotRegular is the error Open returns for a path that names something of
// mode m other than a regular file ("open PATH: not a regular file: a
// FIFO"), for readers that find it out another way (an lstat, a git tree).
func NotRegular(path string, m fs.FileMode) error {
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: %s", ErrNotRegular, describe(m))}
}

func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeIrregular != 0:
		return "a junction or other reparse point" // how Windows reports one that is not a symbolic link
	}
	return "of mode " + m.String()
}

// isLinkErr reports whether err, from a no-follow open, came from path being
// a symbolic link (ELOOP on Linux, EMLINK on some BSDs).
func isLinkErr(path string, err error) bool {
	fi, lerr := os.Lstat(path)
	return lerr == nil && fi.Mode()&fs.ModeSymlink != 0 && err != nil
}
