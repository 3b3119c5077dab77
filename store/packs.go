package store

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/skillstore/skillstore/internal/gitdb"
)

// The objects a push or pull moves, read and written in bulk by package
// store/remote while it holds the write lock.

// Object returns an object's type and content as git stores them: the
// transaction's own, else a loose or packed one.
func (r *Reader) Object(h Hash) (gitdb.Object, error) { return r.object(h) }

// ObjectSize returns the size of object h from its header, without
// loading it (a fetched blob may be huge).
func (r *Reader) ObjectSize(h Hash) (int64, error) {
	if r.tx != nil {
		if o, ok := r.tx.pending.Get(h); ok {
			return int64(len(o.Data)), nil
		}
	}
	if o, ok := r.s.dry.object(h); ok {
		return int64(len(o.Data)), nil
	}
	if n, err := r.db.Size(h); err == nil {
		return n, nil
	}
	n, err := r.storage().EncodedObjectSize(toGit(h))
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return 0, fmt.Errorf("object %s: %w", h, ErrObjectNotFound)
	}
	return n, err
}

// StorePack writes the objects of the pack read from r (as a fetch
// receives it) into the object database. They are not the transaction's
// queued objects: they are on disk at once, reachable from no ref until
// the transaction points refs at them, and pruned by gc if it never does.
// The transaction's next reads see them. The pack goes through a
// quarantine folder and its index is renamed into place before it
// (gitdb.ReceivePack), so a process killed meanwhile never leaves a
// truncated index that git fsck rejects.
func (tx *Tx) StorePack(r io.Reader) error {
	if err := gitdb.ReceivePack(tx.s.dir, r); err != nil {
		return err
	}
	// Both readers keep their list of packs: reopen them on the next read.
	if tx.st != nil {
		tx.st.Close()
		tx.st = nil
	}
	tx.db.Close()
	return nil
}

// StoreReceived lets store write a pack a fetch received into the object
// database as it came (gitfetch.Fetched.StoreReceived): like StorePack,
// on disk at once and reachable from no ref until the transaction points
// refs at it, without parsing the pack again. ok is false when store did
// not (the caller then queues the objects); a dry run never writes one.
func (tx *Tx) StoreReceived(store func(gitDir string) (bool, error)) (ok bool, err error) {
	if tx.s.dryRun {
		return false, nil
	}
	if ok, err = store(tx.s.dir); err != nil || !ok {
		return false, err
	}
	if tx.st != nil {
		tx.st.Close()
		tx.st = nil
	}
	tx.db.Close()
	return true, nil
}

// KeepPacksOpen makes the transaction's object reads (and go-git's pack
// encoder) go through pack files kept open with a large cache, instead of
// opening the pack once per object read: a push or pull reads every
// object of the history it moves. The returned function closes the packs
// and restores the reader.
func (tx *Tx) KeepPacksOpen() (restore func()) {
	st := filesystem.NewStorageWithOptions(osfs.New(tx.s.dir), cache.NewObjectLRU(64<<20), filesystem.Options{KeepDescriptors: true})
	old := tx.st
	tx.st = st
	return func() {
		// StorePack may have replaced st meanwhile; whatever is open now
		// and the storage from before are closed, and the next read opens
		// a fresh one that lists every pack.
		if tx.st != nil {
			tx.st.Close()
		}
		if old != nil && old != tx.st {
			old.Close()
		}
		tx.st = nil
	}
}
