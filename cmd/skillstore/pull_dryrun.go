package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/store"
)

// Pull writes what it fetches into the object database before it decides
// anything (the fetched objects are what it checks), so its dry run cannot
// be a discarded transaction. It runs the real pull on a scratch copy of
// the store instead, and reports what it did there.

// scratchStore copies the store at dir into a new temporary folder: object
// files hard-linked where the file system allows (git never changes an
// object or pack file once written, it only adds and deletes them),
// everything else copied, the lock file left out. The caller removes it.
func scratchStore(dir string) (string, error) {
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

// openPullStore opens the store pull works on: the store, or under
// --dry-run a scratch copy of it; cleanup removes the copy.
func openPullStore(c *cli.Context) (*store.Store, func(), error) {
	if c.Bool("dry-run") {
		return openScratchStore(c)
	}
	s, err := openStore(c)
	return s, func() {}, err
}

// openScratchStore opens a scratch copy of the store for pull --dry-run;
// cleanup removes it.
func openScratchStore(c *cli.Context) (s *store.Store, cleanup func(), err error) {
	real, err := openStore(c)
	if err != nil {
		return nil, nil, err
	}
	// The shared lock keeps writers out while the copy is made.
	var tmp string
	err = real.View(c.Context, func(*store.Reader) error {
		tmp, err = scratchStore(real.Dir())
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	opts, err := storeOptions(c)
	if err == nil {
		s, err = store.Open(c.Context, tmp, opts)
	}
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return s, cleanup, nil
}
