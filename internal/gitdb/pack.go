package gitdb

import (
	"fmt"
	"os"
)

// Pack is one pack file read on its own through its index: a fetched
// pack kept in a temporary file, whose objects a fetch serves from there
// (each read inflated when asked, delta bases in a bounded cache) instead
// of holding every object of a whole history in memory.
type Pack struct {
	pr *packReader
	p  *packFile
}

// OpenPack reads the pack in f through idx, a version 2 index of it. The
// pack keeps f; Close closes it.
func OpenPack(f *os.File, idx []byte) (*Pack, error) {
	p, err := packOfFile(f, idx)
	if err != nil {
		return nil, fmt.Errorf("open pack: %w", err)
	}
	pr := &packReader{packs: []*packFile{p}, seen: map[string]bool{}}
	p.pr = pr
	return &Pack{pr: pr, p: p}, nil
}

// Has reports whether the pack holds h.
func (p *Pack) Has(h ID) bool {
	_, ok := p.p.offset(h)
	return ok
}

// Read reads h from the pack; ok is false when the pack does not hold it.
// Content that does not hash to h is never returned (ErrHashMismatch). A
// delta whose base is in no pack is an error: OpenPack is for packs whole
// in themselves.
func (p *Pack) Read(h ID) (o Object, ok bool, err error) {
	off, ok := p.p.offset(h)
	if !ok {
		return Object{}, false, nil
	}
	o, err = p.p.read(off, func(base ID) (Object, error) {
		return Object{}, fmt.Errorf("%s: %w", base, ErrObjectNotFound)
	}, 0)
	if err == nil && HashObject(o.Type, o.Data) != h {
		err = ErrHashMismatch
	}
	return o, true, err
}

// IDs lists the objects of the pack, in the index's order.
func (p *Pack) IDs() []ID {
	out := make([]ID, p.p.n)
	names := p.p.idx[idxHeaderSize:]
	for i := range out {
		copy(out[i][:], names[i*20:i*20+20])
	}
	return out
}

// Close releases the pack and its file.
func (p *Pack) Close() { p.pr.close() }
