package gitfetch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/skillstore/skillstore/internal/gitdb"
)

// PackfileWriter makes go-git hand the fetched pack to the storer as it
// arrives instead of parsing it into memory object by object: the pack
// passes a gitdb.PackGuard, which stops the fetch at an object over
// gitdb.MaxFetchedObjectSize before anything inflates it, and is spooled
// to a temporary file that Close parses into the fetch's memory.
func (f *fetchStorer) PackfileWriter() (io.WriteCloser, error) {
	tmp, err := os.CreateTemp("", "skillstore-fetch-*.pack")
	if err != nil {
		return nil, fmt.Errorf("spool fetched pack: %w", err)
	}
	os.Remove(tmp.Name()) // unlinked: nothing is left behind, even on a crash
	return &packSpool{f: f, file: tmp, guard: gitdb.NewPackGuard()}, nil
}

// maxSpooledPack bounds the compressed pack a fetch may send.
const maxSpooledPack = 1 << 30

// packSpool is the writer PackfileWriter returns.
type packSpool struct {
	f       *fetchStorer
	file    *os.File
	guard   *gitdb.PackGuard
	written int64
	refused error
}

// Write spools p once the guard has passed it. A refusal fails the
// write, which ends the fetch at once: the session kills the server's
// process instead of reading the rest (see Session.FetchPack).
func (s *packSpool) Write(p []byte) (int, error) {
	if s.written += int64(len(p)); s.written > maxSpooledPack {
		return 0, fmt.Errorf("the fetched pack is larger than %d bytes", maxSpooledPack)
	}
	if s.refused != nil {
		return 0, s.refused
	}
	if _, err := s.guard.Write(p); err != nil {
		if s.refused = s.guard.Close(); s.refused == nil {
			s.refused = err
		}
		return 0, s.refused
	}
	return s.file.Write(p)
}

// Close checks the guard's verdict, then parses the spooled pack (deltas
// resolved against the store's objects for a thin pack) into the fetch's
// memory objects, indexing it on the way: a pack whole in itself is kept,
// with its index, for the store to take as it came ([Fetched.StoreReceived]).
func (s *packSpool) Close() (err error) {
	kept := false
	defer func() {
		if !kept {
			s.file.Close()
		}
	}()
	if s.refused != nil {
		return s.refused
	}
	if err := s.guard.Close(); err != nil {
		return err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if !s.guard.RefDeltas() {
		ok, err := s.keepWhole()
		if ok || err != nil {
			kept = ok
			return err
		}
		if _, err := s.file.Seek(0, io.SeekStart); err != nil {
			return err
		}
	}
	iw := new(idxfile.Writer)
	p, err := packfile.NewParserWithStorage(packfile.NewScanner(s.file), s.f, iw)
	if err != nil {
		return err
	}
	if _, err := p.Parse(); err != nil {
		if errors.Is(err, packfile.ErrEmptyPackfile) {
			return nil
		}
		return fmt.Errorf("parse fetched pack: %w", err)
	}
	if s.guard.RefDeltas() || !iw.Finished() {
		return nil // it may need objects from elsewhere: its objects are queued one by one
	}
	idx, err := iw.Index()
	if err != nil {
		return fmt.Errorf("index fetched pack: %w", err)
	}
	var buf bytes.Buffer
	if _, err := idxfile.NewEncoder(&buf).Encode(idx); err != nil {
		return fmt.Errorf("index fetched pack: %w", err)
	}
	s.f.received = &receivedPack{file: s.file, size: s.written, sum: gitdb.ID(idx.PackfileChecksum), idx: buf.Bytes()}
	kept = true
	return nil
}

// keepWhole indexes a pack whole in itself (no delta on an object outside
// it) without keeping its objects: the fetch reads them from the spool
// file when asked (gitdb.Pack: each inflated when read, delta bases in a
// bounded cache), so a whole history costs the memory of its largest
// objects, not of all of them. It notes the pack's trees and commits as
// the index is built (checkTrees checks the trees; a short --ref is looked
// for among the commits). ok is false, with no error, for a pack the
// index cannot take (the caller parses it into memory instead).
func (s *packSpool) keepWhole() (ok bool, err error) {
	iw := new(idxfile.Writer)
	kinds := &kindObserver{}
	p, err := packfile.NewParser(packfile.NewScanner(s.file), iw, kinds)
	if err != nil {
		return false, err
	}
	if _, err := p.Parse(); err != nil {
		if errors.Is(err, packfile.ErrEmptyPackfile) {
			return true, nil
		}
		return false, fmt.Errorf("parse fetched pack: %w", err)
	}
	if !iw.Finished() {
		return false, nil
	}
	idx, err := iw.Index()
	if err != nil {
		return false, fmt.Errorf("index fetched pack: %w", err)
	}
	var buf bytes.Buffer
	if _, err := idxfile.NewEncoder(&buf).Encode(idx); err != nil {
		return false, fmt.Errorf("index fetched pack: %w", err)
	}
	pack, err := gitdb.OpenPack(s.file, buf.Bytes())
	if err != nil {
		return false, nil
	}
	s.f.pack, s.f.packTrees, s.f.packCommits = pack, kinds.trees, kinds.commits
	// Closed when the fetch is no longer reachable: its objects stay
	// readable as long as someone holds it.
	runtime.AddCleanup(s.f, func(p *gitdb.Pack) { p.Close() }, pack)
	s.f.received = &receivedPack{file: s.file, size: s.written, sum: gitdb.ID(idx.PackfileChecksum), idx: buf.Bytes(), lazy: true}
	return true, nil
}

// kindObserver notes, as a pack is indexed, which of its objects are trees
// and commits (the parser tells each object's type, deltas resolved,
// before its id).
type kindObserver struct {
	last           plumbing.ObjectType
	trees, commits []plumbing.Hash
}

func (k *kindObserver) OnHeader(uint32) error { return nil }
func (k *kindObserver) OnInflatedObjectHeader(t plumbing.ObjectType, _, _ int64) error {
	k.last = t
	return nil
}
func (k *kindObserver) OnInflatedObjectContent(h plumbing.Hash, _ int64, _ uint32, _ []byte) error {
	switch k.last {
	case plumbing.TreeObject:
		k.trees = append(k.trees, h)
	case plumbing.CommitObject:
		k.commits = append(k.commits, h)
	}
	return nil
}
func (k *kindObserver) OnFooter(plumbing.Hash) error { return nil }

// receivedPack is a fetched pack kept as it came, with its index: the
// spool file (unlinked), until the store takes it or it is released.
type receivedPack struct {
	mu       sync.Mutex
	file     *os.File
	size     int64
	sum      gitdb.ID
	idx      []byte
	storedIn string // the repository it was stored in
	// lazy: the fetch reads its objects from file (keepWhole), so the
	// file stays open after the store takes the pack or the fetch is
	// released, until the fetch is unreachable; released says Release
	// was called (the store takes it no more).
	lazy, released bool
}

// StoreReceived writes the pack the fetch received into the repository
// at gitDir as it came (gitdb.InstallPack: no object inflated or
// compressed again), after checking every tree in it as NewObjects does.
// ok is false when there is no such pack (nothing new came, or the pack
// leans on objects outside it): the caller queues NewObjects instead.
// Storing it again in the same repository is a no-op. The caller holds
// the repository's write lock; the objects are reachable from no ref
// until the caller's refs point at them (gc prunes them otherwise).
func (f Fetched) StoreReceived(gitDir string) (ok bool, err error) {
	rp := f.received()
	if rp == nil {
		return false, nil
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.storedIn != "" {
		return rp.storedIn == gitDir, nil
	}
	if rp.file == nil || rp.released {
		return false, nil // released
	}
	if err := f.objects.checkTrees(); err != nil {
		return false, err
	}
	if err := gitdb.InstallPack(gitDir, rp.file, rp.size, rp.sum, rp.idx); err != nil {
		return false, err
	}
	rp.storedIn = gitDir
	if !rp.lazy {
		rp.file.Close()
		rp.file = nil
	}
	rp.idx = nil
	return true, nil
}

// ReceivedIn reports whether StoreReceived stored this fetch's pack in
// the repository at gitDir already.
func (f Fetched) ReceivedIn(gitDir string) bool {
	rp := f.received()
	if rp == nil {
		return false
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.storedIn == gitDir
}

// Release closes the pack a fetch kept for StoreReceived, when the store
// did not take it; the fetched objects stay readable.
func (f Fetched) Release() {
	rp := f.received()
	if rp == nil {
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.released = true
	if rp.file != nil && !rp.lazy {
		rp.file.Close()
		rp.file, rp.idx = nil, nil
	}
}

func (f Fetched) received() *receivedPack {
	if f.objects == nil {
		return nil
	}
	return f.objects.received
}
