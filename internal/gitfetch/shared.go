package gitfetch

import (
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage"
)

// SharedBase makes one repository's storage the base of many concurrent
// fetches. go-git's storage is not safe for concurrent use, and opening
// one per fetch reads every pack index again for each; the fetches read
// few objects of the base (the commit they have, delta bases, the tree
// they read after), so they take turns, and each object is copied out
// under the lock because a packed object's reader shares the pack's
// state. Only object reads are served: fetches write to memory.
type SharedBase struct {
	storage.Storer
	mu sync.Mutex
}

// NewSharedBase wraps st (which SharedBase then owns).
func NewSharedBase(st storage.Storer) *SharedBase { return &SharedBase{Storer: st} }

func (s *SharedBase) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, err := s.Storer.EncodedObject(t, h)
	if err != nil {
		return nil, err
	}
	return copyObject(o)
}

func (s *SharedBase) HasEncodedObject(h plumbing.Hash) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storer.HasEncodedObject(h)
}

func (s *SharedBase) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
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
