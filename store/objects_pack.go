package store

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// packReader reads objects straight from the store's packfiles: each
// index (.idx, version 2) is read into memory once per Reader and objects
// are inflated from one positioned read of the pack, deltas resolved.
// It is the hot path of reads in a packed store; anything it does not
// handle is left to go-git (see [Reader.object]).
type packReader struct {
	packs []*packFile
	bases baseCache
}

// baseCache keeps recently used delta bases: commits and trees are
// deltified against each other in long chains, and consecutive reads
// share most of a chain. Cached data is only read, never handed out.
type baseCache struct {
	mu   sync.Mutex
	objs map[baseKey]rawObject
	size int
}

type baseKey struct {
	p   *packFile
	off int64
}

// maxBaseCache bounds the bytes of delta bases kept; when full the cache
// starts over.
const maxBaseCache = 16 << 20

func (c *baseCache) get(k baseKey) (rawObject, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.objs[k]
	return o, ok
}

func (c *baseCache) put(k baseKey, o rawObject) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.objs == nil || c.size+len(o.data) > maxBaseCache {
		c.objs, c.size = map[baseKey]rawObject{}, 0
	}
	if len(o.data) <= maxBaseCache/4 {
		c.objs[k] = o
		c.size += len(o.data)
	}
}

// packFile is one pack and its index.
type packFile struct {
	f    *os.File
	size int64
	idx  []byte
	n    int         // objects
	pr   *packReader // its reader: the other packs (REF_DELTA bases), the base cache
}

// openPacks opens every pack of gitDir that has a version 2 index; packs
// it cannot use are skipped (go-git still reads them).
func openPacks(gitDir string) *packReader {
	pr := &packReader{}
	dir := filepath.Join(gitDir, "objects", "pack")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return pr
	}
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok || !strings.HasPrefix(base, "pack-") {
			continue
		}
		if p, err := openPackFile(filepath.Join(dir, base)); err == nil {
			p.pr = pr
			pr.packs = append(pr.packs, p)
		}
	}
	return pr
}

const idxHeaderSize = 8 + 256*4

func openPackFile(base string) (*packFile, error) {
	idx, err := os.ReadFile(base + ".idx")
	if err != nil {
		return nil, err
	}
	if len(idx) < idxHeaderSize+40 || string(idx[:8]) != "\xfftOc\x00\x00\x00\x02" {
		return nil, errors.New("not a version 2 pack index")
	}
	n := int(binary.BigEndian.Uint32(idx[idxHeaderSize-4:]))
	if len(idx) < idxHeaderSize+n*28+40 {
		return nil, errors.New("truncated pack index")
	}
	for i, prev := 0, uint32(0); i < 256; i++ {
		if f := binary.BigEndian.Uint32(idx[8+4*i:]); f >= prev {
			prev = f
		} else {
			return nil, errors.New("bad pack index fan-out")
		}
	}
	f, err := os.Open(base + ".pack")
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	var trailer [20]byte
	if err == nil && info.Size() >= 32 {
		_, err = f.ReadAt(trailer[:], info.Size()-20)
	} else if err == nil {
		err = errors.New("truncated pack")
	}
	if err == nil && !bytes.Equal(trailer[:], idx[len(idx)-40:len(idx)-20]) {
		err = errors.New("pack and index do not match")
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &packFile{f: f, size: info.Size(), idx: idx, n: n}, nil
}

func (pr *packReader) close() {
	for _, p := range pr.packs {
		p.f.Close()
	}
	pr.packs = nil
}

// find returns the pack holding h and the object's offset in it.
func (pr *packReader) find(h Hash) (*packFile, int64, bool) {
	for _, p := range pr.packs {
		if off, ok := p.offset(h); ok {
			return p, off, true
		}
	}
	return nil, 0, false
}

func (p *packFile) offset(h Hash) (int64, bool) {
	fan := func(i int) int { return int(binary.BigEndian.Uint32(p.idx[8+4*i:])) }
	lo, hi := 0, fan(int(h[0]))
	if h[0] > 0 {
		lo = fan(int(h[0]) - 1)
	}
	names := p.idx[idxHeaderSize:]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(names[mid*20:mid*20+20], h[:]); {
		case c == 0:
			offs := p.idx[idxHeaderSize+p.n*24:]
			off := binary.BigEndian.Uint32(offs[mid*4:])
			if off&0x80000000 == 0 {
				return int64(off), true
			}
			large := p.idx[idxHeaderSize+p.n*28:]
			i := int(off & 0x7fffffff)
			if len(large) < i*8+8+40 {
				return 0, false
			}
			return int64(binary.BigEndian.Uint64(large[i*8:])), true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// packInflater is the reusable state of one read: a buffer over the pack
// file and a zlib reader.
type packInflater struct {
	br *bufio.Reader
	zr io.ReadCloser
}

var inflaters = sync.Pool{New: func() any { return &packInflater{br: bufio.NewReaderSize(nil, 4096)} }}

// maxDeltaDepth bounds delta chains (git writes at most 4095).
const maxDeltaDepth = 4095

// read returns the object at off in p. other reads an object that is in
// none of the packs (the base of a REF_DELTA in a thin pack).
func (p *packFile) read(off int64, other func(Hash) (rawObject, error), depth int) (rawObject, error) {
	if depth > maxDeltaDepth {
		return rawObject{}, errors.New("delta chain too long")
	}
	e, err := p.entry(off)
	if err != nil {
		return rawObject{}, err
	}
	bp, baseOff := p, e.baseOff
	switch e.typ {
	case plumbing.OFSDeltaObject:
	case plumbing.REFDeltaObject:
		var ok bool
		if bp, baseOff, ok = p.pr.find(e.baseID); !ok {
			src, err := other(e.baseID)
			if err != nil {
				return rawObject{}, fmt.Errorf("delta base: %w", err)
			}
			return applyDeltaTo(src, e.data)
		}
	default:
		return rawObject{typ: e.typ, data: e.data}, nil
	}
	// Bases in the packs are read here, with depth counted, so a damaged
	// pack whose deltas form a cycle ends in an error.
	k := baseKey{bp, baseOff}
	src, ok := p.pr.bases.get(k)
	if !ok {
		if src, err = bp.read(baseOff, other, depth+1); err != nil {
			return rawObject{}, fmt.Errorf("delta base: %w", err)
		}
		p.pr.bases.put(k, src)
	}
	return applyDeltaTo(src, e.data)
}

// packEntry is one entry of a pack as stored: an object, or a delta and
// where its base is.
type packEntry struct {
	typ     plumbing.ObjectType
	data    []byte // inflated
	baseOff int64  // OFS_DELTA
	baseID  Hash   // REF_DELTA
}

// entry reads and inflates the entry at off.
func (p *packFile) entry(off int64) (packEntry, error) {
	var e packEntry
	if off < 12 || off >= p.size-20 {
		return e, errors.New("object offset outside the pack")
	}
	in := inflaters.Get().(*packInflater)
	defer inflaters.Put(in)
	in.br.Reset(io.NewSectionReader(p.f, off, p.size-off))
	b, err := in.br.ReadByte()
	if err != nil {
		return e, err
	}
	e.typ = plumbing.ObjectType((b >> 4) & 7)
	size := int64(b & 0x0f)
	for shift := 4; b&0x80 != 0; shift += 7 {
		if b, err = in.br.ReadByte(); err != nil {
			return e, err
		}
		if shift > 56 {
			return e, errors.New("bad object size")
		}
		size |= int64(b&0x7f) << shift
	}
	switch e.typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	case plumbing.OFSDeltaObject:
		if b, err = in.br.ReadByte(); err != nil {
			return e, err
		}
		dist := int64(b & 0x7f)
		for b&0x80 != 0 {
			if b, err = in.br.ReadByte(); err != nil {
				return e, err
			}
			if dist > 1<<48 {
				return e, errors.New("bad delta offset")
			}
			dist = (dist+1)<<7 | int64(b&0x7f)
		}
		if e.baseOff = off - dist; dist <= 0 || e.baseOff < 12 {
			return e, errors.New("bad delta offset")
		}
	case plumbing.REFDeltaObject:
		if _, err := io.ReadFull(in.br, e.baseID[:]); err != nil {
			return e, err
		}
	default:
		return e, fmt.Errorf("bad object type %d", e.typ)
	}
	if in.zr == nil {
		in.zr, err = zlib.NewReader(in.br)
	} else {
		err = in.zr.(zlib.Resetter).Reset(in.br, nil)
	}
	if err != nil {
		return e, err
	}
	// The buffer grows with what the stream holds, so a damaged size in a
	// header cannot make one huge allocation.
	var buf bytes.Buffer
	buf.Grow(int(min(size, 1<<20)))
	if n, err := buf.ReadFrom(io.LimitReader(in.zr, size)); err != nil || n != size {
		return e, fmt.Errorf("object shorter than its header says: %v", err)
	}
	// Reading on to the end checks the stream's checksum and length.
	var one [1]byte
	if n, err := in.zr.Read(one[:]); n != 0 || err != io.EOF {
		return e, errors.New("object longer than its header says")
	}
	e.data = buf.Bytes()
	return e, nil
}

// applyDeltaTo rebuilds an object of src's type from src and a delta.
func applyDeltaTo(src rawObject, delta []byte) (rawObject, error) {
	out, err := applyDelta(src.data, delta)
	if err != nil {
		return rawObject{}, err
	}
	return rawObject{typ: src.typ, data: out}, nil
}

// applyDelta rebuilds an object from its base and a git delta: the two
// sizes, then copy (from base) and insert (literal) instructions.
func applyDelta(base, delta []byte) ([]byte, error) {
	bad := errors.New("bad delta")
	varint := func() (int, bool) {
		n, shift := 0, 0
		for len(delta) > 0 && shift < 56 {
			b := delta[0]
			delta = delta[1:]
			n |= int(b&0x7f) << shift
			if b&0x80 == 0 {
				return n, true
			}
			shift += 7
		}
		return 0, false
	}
	srcSize, ok1 := varint()
	dstSize, ok2 := varint()
	if !ok1 || !ok2 || srcSize != len(base) || dstSize > len(delta)*0x10000+len(delta) {
		return nil, bad
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0:
			var off, n int
			for i, shift := 0, 0; i < 7; i, shift = i+1, shift+8 {
				if op&(1<<i) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, bad
				}
				if i < 4 {
					off |= int(delta[0]) << shift
				} else {
					n |= int(delta[0]) << (shift - 32)
				}
				delta = delta[1:]
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > len(base) || len(out)+n > dstSize {
				return nil, bad
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			n := int(op)
			if n > len(delta) || len(out)+n > dstSize {
				return nil, bad
			}
			out = append(out, delta[:n]...)
			delta = delta[n:]
		default:
			return nil, bad
		}
	}
	if len(out) != dstSize {
		return nil, bad
	}
	return out, nil
}
