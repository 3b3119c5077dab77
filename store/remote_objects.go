package store

import (
	"fmt"
	"io"
	"path"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// packedReader reads the objects a push or pull moves, all of them, many
// thousands for a big store. It keeps the pack files open, and go-git's
// ExclusiveAccess makes it list the loose objects once instead of trying
// to open a loose file before every packed read. That holds because its
// user has the store's write lock and writes no object until the
// transaction commits; objects the transaction queued are read from it.
type packedReader struct {
	tx *Tx
	st *filesystem.Storage
}

func newPackedReader(tx *Tx) *packedReader {
	st := filesystem.NewStorageWithOptions(osfs.New(tx.s.dir), cache.NewObjectLRU(16<<20),
		filesystem.Options{KeepDescriptors: true, ExclusiveAccess: true})
	return &packedReader{tx: tx, st: st}
}

// object reads a fetched object; objects of the store itself are read
// the same way (they are all in packs or loose files).
func (c *packedReader) object(h Hash) (rawObject, error) {
	o, err := c.st.EncodedObject(plumbing.AnyObject, toGit(h))
	if err != nil {
		return c.tx.object(h) // loose objects written after the listing, pending ones
	}
	rd, err := o.Reader()
	if err != nil {
		return rawObject{}, fmt.Errorf("object %s: %w", h, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return rawObject{}, fmt.Errorf("object %s: %w", h, err)
	}
	return rawObject{typ: o.Type(), data: data}, nil
}

func (c *packedReader) typed(h Hash, want plumbing.ObjectType) ([]byte, error) {
	return typedFrom(c, h, want)
}

func (c *packedReader) commit(h Hash) (*Commit, error) { return commitFrom(c, h) }

func (c *packedReader) tree(h Hash) ([]skillfs.TreeEntry, error) { return treeFrom(c, h) }

// loadFiles is Reader.LoadFiles over this reader (for a tree whose shape
// was checked: it loads every blob).
func (c *packedReader) loadFiles(tree Hash) ([]File, error) {
	var out []File
	var walk func(h Hash, prefix string) error
	walk = func(h Hash, prefix string) error {
		entries, err := c.tree(h)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := path.Join(prefix, e.Name)
			if e.Mode == skillfs.Dir {
				if err := walk(e.ID, p); err != nil {
					return err
				}
				continue
			}
			data, err := c.typed(e.ID, plumbing.BlobObject)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			out = append(out, File{Path: p, Mode: e.Mode, ID: e.ID, Data: data, Size: int64(len(data))})
		}
		return nil
	}
	if err := walk(tree, ""); err != nil {
		return nil, err
	}
	SortFiles(out)
	return out, nil
}

// close releases the pack files.
func (c *packedReader) close() { c.st.Close() }
