package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// ErrNotEmpty is returned by Checkout for a non-empty target folder
// without force.
var ErrNotEmpty = errors.New("folder is not empty")

// NoFileError reports a file that a version does not hold.
type NoFileError struct {
	Version string
	Path    string
}

func (e *NoFileError) Error() string { return fmt.Sprintf("%s has no file %q", e.Version, e.Path) }

// Cat returns the content of file (default SKILL.md) in the version named
// by spec.
func (s *Store) Cat(ctx context.Context, spec, file string) ([]byte, error) {
	if file == "" {
		file = skillmd.FileName
	}
	var data []byte
	err := s.View(ctx, func(r *Reader) error {
		v, err := r.Resolve(spec)
		if err != nil {
			return err
		}
		files, err := r.Files(v.Tree)
		if err != nil {
			return err
		}
		for _, f := range files {
			if f.Path == filepath.ToSlash(filepath.Clean(file)) {
				data, err = r.Blob(f.ID)
				return err
			}
		}
		return &NoFileError{Version: v.Name(), Path: file}
	})
	return data, err
}

// Checkout writes the version named by spec into dir, completely or not
// at all: the files go to a temporary folder next to dir, which then
// replaces dir in one rename. A non-empty dir is refused with ErrNotEmpty
// unless force, and then swapped atomically and its old content deleted.
func (s *Store) Checkout(ctx context.Context, spec, dir string, force bool) (Version, error) {
	if err := s.refuseOverlap(dir); err != nil {
		return Version{}, err
	}
	var v Version
	var files []File
	err := s.View(ctx, func(r *Reader) error {
		var err error
		if v, err = r.Resolve(spec); err != nil {
			return err
		}
		files, err = r.LoadFiles(v.Tree)
		return err
	})
	if err != nil {
		return Version{}, err
	}
	if err := WriteTreeDir(dir, files, force); err != nil {
		return v, err
	}
	s.noteCheckout(dir, v)
	return v, nil
}

// OverlapError refuses a folder to write into that contains the store or
// lies inside it: replacing it would delete the store.
type OverlapError struct {
	Dir, Store string
}

func (e *OverlapError) Error() string {
	return fmt.Sprintf("%s overlaps the store at %s: nothing was written", e.Dir, e.Store)
}

// refuseOverlap returns an *OverlapError when dir and the store contain
// one another (symlinks resolved where the folders exist).
func (s *Store) refuseOverlap(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	}
	d, st := real(abs), real(s.dir)
	if pathWithin(d, st) || pathWithin(st, d) {
		return &OverlapError{Dir: abs, Store: s.dir}
	}
	return nil
}

// pathWithin reports whether p is dir or below it.
func pathWithin(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// WriteTreeDir writes files into dir atomically (see Checkout). With
// force a non-empty dir is replaced, but only when it holds one skill's
// files, nothing else (see checkReplaceable): force deletes what it held.
func WriteTreeDir(dir string, files []File, force bool) error {
	mode := refuseNonEmpty
	if force {
		mode = replaceOneSkill
	}
	return writeTreeDir(dir, files, mode)
}

// ReplaceTreeDir writes files into dir, a folder of the store's own (a
// candidate's work folder), replacing whatever it holds.
func ReplaceTreeDir(dir string, files []File) error {
	return writeTreeDir(dir, files, replaceAny)
}

// replaceMode is what writeTreeDir does with a non-empty folder.
type replaceMode int

const (
	refuseNonEmpty  replaceMode = iota // ErrNotEmpty
	replaceOneSkill                    // if it holds one skill's files
	replaceAny                         // the store's own folder
)

func writeTreeDir(dir string, files []File, mode replaceMode) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	exists, empty := false, true
	if info, err := os.Stat(abs); err == nil {
		if !info.IsDir() {
			return fmt.Errorf("%s exists and is not a folder", dir)
		}
		exists = true
		entries, err := os.ReadDir(abs)
		if err != nil {
			return err
		}
		empty = len(entries) == 0
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	switch {
	case empty:
	case mode == refuseNonEmpty:
		return fmt.Errorf("%s: %w", dir, ErrNotEmpty)
	case mode == replaceOneSkill:
		if err := checkReplaceable(dir, abs, files); err != nil {
			return err
		}
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, atomicfile.TempPrefix+filepath.Base(abs)+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := skillfs.CheckWritable(files); err != nil {
		return fmt.Errorf("checkout into %s: %w", dir, err)
	}
	for _, f := range files {
		p := filepath.Join(tmp, filepath.FromSlash(f.Path))
		if err := checkTreePath(f.Path); err != nil {
			return err
		}
		if err := skillfs.CheckLocalPath(f.Path); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if f.Mode == skillfs.Symlink {
			// Relative and inside the folder (CheckWritable above).
			if err := os.Symlink(string(f.Data), p); err != nil {
				return err
			}
			continue
		}
		perm := os.FileMode(0o644)
		if f.Executable() {
			perm = 0o755
		}
		if err := writeFileSynced(p, f.Data, perm); err != nil {
			return err
		}
	}
	if err := syncTree(tmp); err != nil {
		return err
	}
	switch {
	case !exists || empty:
		// Not os.Rename: Go refuses to replace an (empty) directory.
		if err := atomicfile.RenameDir(tmp, abs); err != nil {
			return fmt.Errorf("checkout into %s: %w", dir, err)
		}
	default:
		err := atomicfile.Exchange(tmp, abs)
		if errors.Is(err, atomicfile.ErrExchangeUnsupported) {
			// No atomic swap here (Windows): move the old folder aside,
			// then the new one in. A crash between the two leaves the old
			// content in tmp.old. A folder in use cannot be moved on
			// Windows: the first rename fails and the folder stays whole.
			err = swapByRenames(tmp, abs)
		}
		if err != nil {
			return fmt.Errorf("checkout into %s: %w", dir, err)
		}
		// tmp now holds the old content; the deferred RemoveAll deletes it.
	}
	return atomicfile.SyncDir(parent)
}

// swapByRenames puts the folder tmp at abs and the old folder at tmp, by
// renames: abs aside, tmp in, the old one to tmp. If tmp cannot go in,
// the old folder is put back.
func swapByRenames(tmp, abs string) error {
	aside := tmp + ".old"
	if err := os.Rename(abs, aside); err != nil {
		return err
	}
	if err := os.Rename(tmp, abs); err != nil {
		if rerr := os.Rename(aside, abs); rerr != nil {
			return fmt.Errorf("%w; the old folder is at %s (%v)", err, aside, rerr)
		}
		return err
	}
	return os.Rename(aside, tmp)
}

func writeFileSynced(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm) // not subject to the umask
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncTree(root string) error {
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return atomicfile.SyncDir(p)
	})
}
