package remote

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/store"
)

// Scratch opens a scratch copy of s for a dry run of Pull, and returns a
// function that removes it.
//
// A pull cannot run on s.DryRun(), the dry run every other writing
// command uses: it writes the pack it fetched into the object database
// before it decides anything (the fetched objects are what its safety
// checks read, and what the merges are made of), through the object
// store, not a transaction, so a dry-run store would still get the pack.
// Keeping the pack in memory would mean a second object store beside the
// repository for this one command. So the real pull runs on a copy
// instead: object files are hard-linked where the file system allows (git
// never changes an object or pack file once written, it only adds and
// deletes them), everything else is copied, the lock file left out. The
// copy is made under the store's shared lock, so no writer is halfway
// through; opts opens it (the caller's logger and timeouts).
func Scratch(ctx context.Context, s *store.Store, opts store.Options) (scratch *store.Store, cleanup func(), err error) {
	var tmp string
	err = s.View(ctx, func(*store.Reader) error {
		tmp, err = copyForDryRun(s.Dir())
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	scratch, err = store.Open(ctx, tmp, opts)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return scratch, cleanup, nil
}

// copyForDryRun copies the store at dir into a new temporary folder (see
// Scratch).
func copyForDryRun(dir string) (string, error) {
	tmp, err := os.MkdirTemp("", "skillstore-dry-run-")
	if err != nil {
		return "", err
	}
	objects := filepath.Join(dir, "objects") + string(filepath.Separator)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		dst := filepath.Join(tmp, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, info.Mode().Perm()|0o700)
		case !d.Type().IsRegular() || d.Name() == "lock":
			return nil
		case strings.HasPrefix(p, objects):
			if os.Link(p, dst) == nil {
				return nil
			}
		}
		return copyFile(p, dst, info.Mode().Perm())
	})
	if err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("dry run: copy the store: %w", err)
	}
	return tmp, nil
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
