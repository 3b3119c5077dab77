package remote

import (
	"fmt"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
)

// packedReader reads the objects a push or pull moves, all of them, many
// thousands for a big store, through a gitdb.DB of its own opened when it
// is made: made after a fetch, it sees the fetched pack, and it lists the
// loose objects once instead of trying to open a loose file before every
// packed read. That holds because its user has the store's write lock and
// writes no object until the transaction commits. What its DB cannot read
// (objects the transaction queued, loose objects written after the
// listing, packs gitdb does not read) is read through the transaction.
type packedReader struct {
	tx *store.Tx
	db *gitdb.DB
	// fetched, when set, are objects a fetch brought into memory that
	// nothing has written yet (see FetchSkills): read before the
	// transaction's.
	fetched map[store.Hash]gitdb.Object
}

func newPackedReader(tx *store.Tx) *packedReader {
	return &packedReader{tx: tx, db: gitdb.Open(tx.Store().Dir())}
}

// object reads a fetched object; objects of the store itself are read
// the same way (they are all in packs or loose files).
func (c *packedReader) object(h store.Hash) (gitdb.Object, error) {
	o, err := c.db.Read(h)
	if err != nil {
		if f, ok := c.fetched[h]; ok {
			return f, nil
		}
		return c.tx.Object(h)
	}
	return o, nil
}

// size returns the size of blob h from its header, without loading it.
func (c *packedReader) size(h store.Hash) (int64, error) {
	if n, err := c.db.Size(h); err == nil {
		return n, nil
	}
	if f, ok := c.fetched[h]; ok {
		return int64(len(f.Data)), nil
	}
	// go-git has the last word (and its error), as for reads.
	return c.tx.ObjectSize(h)
}

// typed reads h and checks that it is of type want.
func (c *packedReader) typed(h store.Hash, want gitdb.ObjectType) ([]byte, error) {
	o, err := c.object(h)
	if err != nil {
		return nil, err
	}
	if o.Type != want {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, o.Type, want)
	}
	return o.Data, nil
}

// commit reads and decodes the commit h.
func (c *packedReader) commit(h store.Hash) (*store.Commit, error) {
	data, err := c.typed(h, gitdb.CommitObject)
	if err != nil {
		return nil, err
	}
	return gitdb.ParseCommit(h, data)
}

// tree reads and decodes the tree h.
func (c *packedReader) tree(h store.Hash) ([]skillfs.TreeEntry, error) {
	data, err := c.typed(h, gitdb.TreeObject)
	if err != nil {
		return nil, err
	}
	entries, err := skillfs.ParseTree(data)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", h, err)
	}
	return entries, nil
}

// loadFiles is Reader.LoadFiles over this reader (for a tree whose shape
// was checked: it loads every blob).
func (c *packedReader) loadFiles(tree store.Hash) ([]store.File, error) {
	var out []store.File
	var walk func(h store.Hash, dir string, depth int) error
	walk = func(h store.Hash, dir string, depth int) error {
		entries, err := c.tree(h)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p, err := skillfs.ChildPath(dir, e.Name, depth)
			if err != nil {
				return err
			}
			if e.Mode == skillfs.Dir {
				if err := walk(e.ID, p, depth+1); err != nil {
					return err
				}
				continue
			}
			data, err := c.typed(e.ID, gitdb.BlobObject)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			out = append(out, store.File{Path: p, Mode: e.Mode, ID: e.ID, Data: data, Size: int64(len(data))})
		}
		return nil
	}
	if err := walk(tree, "", 1); err != nil {
		return nil, err
	}
	skillfs.Sort(out)
	return out, nil
}

// close releases the pack files.
func (c *packedReader) close() { c.db.Close() }
