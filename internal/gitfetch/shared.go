package gitfetch

import (
	"errors"
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage"

	"github.com/skillstore/skillstore/internal/gitdb"
)

// SharedBase makes one repository's objects the base of many concurrent
// fetches. The fetches read few objects of the base (the commit they
// have, delta bases), but a sync then reads every fetched commit's
// manifest and skill folders through it: objects are read with the
// store's own object database (packs opened once and mapped), not with
// go-git's storage, which opens the pack file again for each object read.
// go-git's storage serves what the database cannot read (a pack whose
// index is not version 2) and the listing of objects. Neither is safe for
// concurrent use, so the fetches take turns. Only object reads are
// served: fetches write to memory. Close releases the packs.
type SharedBase struct {
	storage.Storer
	db *gitdb.DB
	mu sync.Mutex
}

// NewSharedBase wraps st, the storage of the repository at gitDir (which
// SharedBase then owns).
func NewSharedBase(gitDir string, st storage.Storer) *SharedBase {
	return &SharedBase{Storer: st, db: gitdb.Open(gitDir)}
}

// Close releases the pack files; a read after it opens them again.
func (s *SharedBase) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.db.Close()
	if c, ok := s.Storer.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// read reads h with the object database, ok false when it does not hold
// it (or cannot read the pack that does).
func (s *SharedBase) read(h plumbing.Hash) (o gitdb.Object, ok bool, err error) {
	o, err = s.db.Read(gitdb.ID(h))
	if errors.Is(err, gitdb.ErrObjectNotFound) {
		return o, false, nil
	}
	return o, err == nil, err
}

func (s *SharedBase) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok, err := s.read(h); ok || err != nil {
		if err != nil {
			return nil, err
		}
		if t != plumbing.AnyObject && plumbing.ObjectType(o.Type) != t {
			return nil, plumbing.ErrObjectNotFound
		}
		mo := &plumbing.MemoryObject{}
		mo.SetType(plumbing.ObjectType(o.Type))
		mo.Write(o.Data)
		return mo, nil
	}
	o, err := s.Storer.EncodedObject(t, h)
	if err != nil {
		return nil, err
	}
	return copyObject(o)
}

func (s *SharedBase) HasEncodedObject(h plumbing.Hash) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db.Has(gitdb.ID(h)) {
		return nil
	}
	return s.Storer.HasEncodedObject(h)
}

func (s *SharedBase) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, err := s.db.Size(gitdb.ID(h)); err == nil {
		return n, nil
	}
	return s.Storer.EncodedObjectSize(h)
}

// IterEncodedObjects lists every object of type t, copied (only an
// abbreviated commit pin not in the store needs it).
func (s *SharedBase) IterEncodedObjects(t plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	iter, err := s.Storer.IterEncodedObjects(t)
	if err != nil {
		return nil, err
	}
	var all []plumbing.EncodedObject
	err = iter.ForEach(func(o plumbing.EncodedObject) error {
		c, err := copyObject(o)
		all = append(all, c)
		return err
	})
	if err != nil {
		return nil, err
	}
	return storer.NewEncodedObjectSliceIter(all), nil
}

func copyObject(o plumbing.EncodedObject) (plumbing.EncodedObject, error) {
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	mo := &plumbing.MemoryObject{}
	mo.SetType(o.Type())
	if _, err := io.Copy(mo, r); err != nil {
		return nil, err
	}
	return mo, nil
}
