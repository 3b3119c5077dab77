package gitfetch

import (
	"errors"
	"fmt"
	"io"
	"os"

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
// memory objects.
func (s *packSpool) Close() error {
	defer s.file.Close()
	if s.refused != nil {
		return s.refused
	}
	if err := s.guard.Close(); err != nil {
		return err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	p, err := packfile.NewParserWithStorage(packfile.NewScanner(s.file), s.f)
	if err != nil {
		return err
	}
	if _, err := p.Parse(); err != nil && !errors.Is(err, packfile.ErrEmptyPackfile) {
		return fmt.Errorf("parse fetched pack: %w", err)
	}
	return nil
}
