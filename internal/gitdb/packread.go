package gitdb

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// packReader reads objects straight from a repository's packfiles: each
// index (.idx, version 2) is mapped into memory once and objects are
// inflated from one positioned read of the pack, deltas resolved.
type packReader struct {
	packs   []*packFile
	skipped int             // packs with an index it cannot read
	seen    map[string]bool // pack names listed (opened or skipped)
	bases   baseCache
	// last is the pack the previous find hit: objects read together (a
	// commit, its tree, its blobs) are mostly in one pack, so a store of
	// many packs (one per fetched plugin, kept with gc.auto 0) is not searched pack by
	// pack for each of them, as git keeps its last found pack.
	last atomic.Int32
}

// baseCache keeps recently used delta bases: commits and trees are
// deltified against each other in long chains, and consecutive reads
// share most of a chain. Cached data is only read, never handed out.
type baseCache struct {
	mu   sync.Mutex
	objs map[baseKey]Object
	size int
}

type baseKey struct {
	p   *packFile
	off int64
}

// maxBaseCache bounds the bytes of delta bases kept; when full the cache
// starts over.
const maxBaseCache = 16 << 20

func (c *baseCache) get(k baseKey) (Object, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.objs[k]
	return o, ok
}

func (c *baseCache) put(k baseKey, o Object) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.objs == nil || c.size+len(o.Data) > maxBaseCache {
		c.objs, c.size = map[baseKey]Object{}, 0
	}
	if len(o.Data) <= maxBaseCache/4 {
		c.objs[k] = o
		c.size += len(o.Data)
	}
}

// packFile is one pack and its index.
type packFile struct {
	f     *os.File
	size  int64
	idx   []byte // mapped (see mapFile)
	unmap func()
	// data is the pack mapped (see mapPack), nil where it is read with
	// positioned reads; unmapData releases it.
	data      []byte
	unmapData func()
	n         int         // objects
	pr        *packReader // its reader: the other packs (REF_DELTA bases), the base cache
}

// openPacks opens every pack of gitDir that has a version 2 index, found
// by its .idx; packs it cannot use are skipped (see [DB.ReadPacked]).
func openPacks(gitDir string) *packReader {
	pr := &packReader{seen: map[string]bool{}}
	pr.addNew(gitDir)
	return pr
}

// addNew opens the packs of gitDir that pr has not listed yet and reports
// whether it found any.
func (pr *packReader) addNew(gitDir string) bool {
	dir := filepath.Join(gitDir, "objects", "pack")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	added := false
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok || !strings.HasPrefix(base, "pack-") || pr.seen[base] {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, base+".pack")); errors.Is(err, fs.ErrNotExist) {
			// An index without its pack: a writer renames the index into
			// place first and the pack next (see packwrite.go), so this is
			// one between the two renames, or one killed there. Neither
			// holds an object to read yet; a later listing takes the pack
			// once it is there.
			continue
		}
		pr.seen[base] = true
		added = true
		if p, err := openPackFile(filepath.Join(dir, base)); err == nil {
			p.pr = pr
			pr.packs = append(pr.packs, p)
		} else {
			pr.skipped++
		}
	}
	return added
}

// withNewPacks returns a reader of pr's packs plus those written to gitDir
// since pr listed it, or pr when there are none. pr itself is left as it
// is: a gc walk indexes its packs by position. The old packs stay open
// and mapped, so their objects still read after another process deletes
// the files.
func (pr *packReader) withNewPacks(gitDir string) *packReader {
	fresh := &packReader{packs: slices.Clone(pr.packs), skipped: pr.skipped, seen: maps.Clone(pr.seen)}
	if !fresh.addNew(gitDir) {
		return pr
	}
	return fresh
}

const idxHeaderSize = 8 + 256*4

func openPackFile(base string) (*packFile, error) {
	idx, unmap, err := mapFile(base + ".idx")
	if err != nil {
		return nil, err
	}
	p, err := openPackWithIndex(base, idx)
	if err != nil {
		unmap()
		return nil, err
	}
	p.unmap = unmap
	return p, nil
}

func openPackWithIndex(base string, idx []byte) (*packFile, error) {
	if _, err := checkIndex(idx); err != nil {
		return nil, err
	}
	f, err := os.Open(base + ".pack")
	if err != nil {
		return nil, err
	}
	return packOfFile(f, idx)
}

// checkIndex checks that idx is a whole version 2 pack index and returns
// how many objects it lists.
func checkIndex(idx []byte) (int, error) {
	if len(idx) < idxHeaderSize+40 || string(idx[:8]) != "\xfftOc\x00\x00\x00\x02" {
		return 0, errors.New("not a version 2 pack index")
	}
	n := int(binary.BigEndian.Uint32(idx[idxHeaderSize-4:]))
	if len(idx) < idxHeaderSize+n*28+40 {
		return 0, errors.New("truncated pack index")
	}
	for i, prev := 0, uint32(0); i < 256; i++ {
		if f := binary.BigEndian.Uint32(idx[8+4*i:]); f >= prev {
			prev = f
		} else {
			return 0, errors.New("bad pack index fan-out")
		}
	}
	return n, nil
}

// packOfFile reads the pack open in f through idx (checked by
// checkIndex); f is closed when the pack does not match it.
func packOfFile(f *os.File, idx []byte) (*packFile, error) {
	n, err := checkIndex(idx)
	if err != nil {
		f.Close()
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
	p := &packFile{f: f, size: info.Size(), idx: idx, n: n}
	p.data, p.unmapData = mapPack(f, p.size)
	return p, nil
}

func (pr *packReader) close() {
	for _, p := range pr.packs {
		p.f.Close()
		if p.unmap != nil {
			p.unmap()
		}
		if p.unmapData != nil {
			p.unmapData()
		}
	}
	pr.packs = nil
}

// find returns the pack holding h and the object's offset in it.
func (pr *packReader) find(h ID) (*packFile, int64, bool) {
	last := int(pr.last.Load())
	if last < len(pr.packs) {
		if off, ok := pr.packs[last].offset(h); ok {
			return pr.packs[last], off, true
		}
	}
	for i, p := range pr.packs {
		if i == last {
			continue
		}
		if off, ok := p.offset(h); ok {
			pr.last.Store(int32(i))
			return p, off, true
		}
	}
	return nil, 0, false
}

func (p *packFile) offset(h ID) (int64, bool) {
	_, off, ok := p.lookup(h)
	return off, ok
}

// lookup returns h's position in the index (for its CRC, see crcAt) and
// its offset in the pack.
func (p *packFile) lookup(h ID) (int, int64, bool) {
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
			off, ok := p.offsetAt(mid)
			return mid, off, ok
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, 0, false
}

// offsetAt returns the pack offset of the object at position i of the
// index.
func (p *packFile) offsetAt(i int) (int64, bool) {
	off := binary.BigEndian.Uint32(p.idx[idxHeaderSize+p.n*24+i*4:])
	if off&0x80000000 == 0 {
		return int64(off), true
	}
	large := p.idx[idxHeaderSize+p.n*28:]
	j := int(off & 0x7fffffff)
	if len(large) < j*8+8+40 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(large[j*8:])), true
}

// crcAt returns the CRC-32 the index records for the entry at position i.
func (p *packFile) crcAt(i int) uint32 {
	return binary.BigEndian.Uint32(p.idx[idxHeaderSize+p.n*20+i*4:])
}

// idAt returns the object id at position i of the index.
func (p *packFile) idAt(i int) ID {
	var h ID
	copy(h[:], p.idx[idxHeaderSize+i*20:])
	return h
}

// packInflater is the reusable state of one read: a reader of the mapped
// pack (or a buffer over the pack file) and a zlib reader.
type packInflater struct {
	mr bytes.Reader
	br *bufio.Reader
	zr io.ReadCloser
}

// packSource is what an entry is read from: zlib reads a byte reader
// without buffering it again.
type packSource interface {
	io.Reader
	io.ByteReader
}

var inflaters = sync.Pool{New: func() any { return &packInflater{br: bufio.NewReaderSize(nil, 4096)} }}

// maxDeltaDepth bounds delta chains (git writes at most 4095).
const maxDeltaDepth = 4095

// read returns the object at off in p. other reads an object that is in
// none of the packs (the base of a REF_DELTA in a thin pack).
func (p *packFile) read(off int64, other func(ID) (Object, error), depth int) (Object, error) {
	if depth > maxDeltaDepth {
		return Object{}, errors.New("delta chain too long")
	}
	e, err := p.entry(off)
	if err != nil {
		return Object{}, err
	}
	bp, baseOff := p, e.baseOff
	switch e.typ {
	case OFSDeltaObject:
	case REFDeltaObject:
		var ok bool
		if bp, baseOff, ok = p.pr.find(e.baseID); !ok {
			src, err := other(e.baseID)
			if err != nil {
				return Object{}, fmt.Errorf("delta base: %w", err)
			}
			return applyDeltaTo(src, e.data)
		}
	default:
		return Object{Type: e.typ, Data: e.data}, nil
	}
	// Bases in the packs are read here, with depth counted, so a damaged
	// pack whose deltas form a cycle ends in an error.
	k := baseKey{bp, baseOff}
	src, ok := p.pr.bases.get(k)
	if !ok {
		if src, err = bp.read(baseOff, other, depth+1); err != nil {
			return Object{}, fmt.Errorf("delta base: %w", err)
		}
		p.pr.bases.put(k, src)
	}
	return applyDeltaTo(src, e.data)
}

// packEntry is one entry of a pack as stored: an object, or a delta and
// where its base is.
type packEntry struct {
	typ     ObjectType
	data    []byte // inflated
	baseOff int64  // OFS_DELTA
	baseID  ID     // REF_DELTA
}

// entry reads and inflates the entry at off.
func (p *packFile) entry(off int64) (packEntry, error) {
	in := inflaters.Get().(*packInflater)
	defer func() {
		in.mr.Reset(nil) // the pool keeps no hold on a mapped pack
		inflaters.Put(in)
	}()
	e, size, src, err := p.entryHeader(in, off)
	if err != nil {
		return e, err
	}
	if in.zr == nil {
		in.zr, err = zlib.NewReader(src)
	} else {
		err = in.zr.(zlib.Resetter).Reset(src, nil)
	}
	if err != nil {
		return e, err
	}
	// Up to a MiB the data is read into a buffer of the size the header
	// says; above, the buffer grows with what the stream holds, so a
	// damaged size in a header cannot make one huge allocation.
	var data []byte
	if size <= 1<<20 {
		data = make([]byte, size)
		if _, err := io.ReadFull(in.zr, data); err != nil {
			return e, fmt.Errorf("object shorter than its header says: %v", err)
		}
	} else {
		var buf bytes.Buffer
		buf.Grow(1 << 20)
		if n, err := buf.ReadFrom(io.LimitReader(in.zr, size)); err != nil || n != size {
			return e, fmt.Errorf("object shorter than its header says: %v", err)
		}
		data = buf.Bytes()
	}
	// Reading on to the end checks the stream's checksum and length.
	var one [1]byte
	if n, err := in.zr.Read(one[:]); n != 0 || err != io.EOF {
		return e, errors.New("object longer than its header says")
	}
	e.data = data
	return e, nil
}

// entryHeader reads the header of the entry at off through in and returns
// the entry without data, the size of its inflated data, and the source
// left at the start of the compressed data.
func (p *packFile) entryHeader(in *packInflater, off int64) (packEntry, int64, packSource, error) {
	var e packEntry
	if off < 12 || off >= p.size-20 {
		return e, 0, nil, errors.New("object offset outside the pack")
	}
	var src packSource
	if p.data != nil {
		in.mr.Reset(p.data[off:p.size])
		src = &in.mr
	} else {
		in.br.Reset(io.NewSectionReader(p.f, off, p.size-off))
		src = in.br
	}
	e, size, err := decodeEntryHeader(src, off)
	return e, size, src, err
}

// decodeEntryHeader reads the header of the entry at off from src: its
// type and inflated size and, for a delta, where its base is. With off
// below zero (a pack streaming past) an OFS_DELTA's base offset is read
// but not resolved.
func decodeEntryHeader(src packSource, off int64) (packEntry, int64, error) {
	var e packEntry
	b, err := src.ReadByte()
	if err != nil {
		return e, 0, err
	}
	e.typ = ObjectType((b >> 4) & 7)
	size := int64(b & 0x0f)
	for shift := 4; b&0x80 != 0; shift += 7 {
		if b, err = src.ReadByte(); err != nil {
			return e, 0, err
		}
		if shift > 56 {
			return e, 0, errors.New("bad object size")
		}
		size |= int64(b&0x7f) << shift
	}
	switch e.typ {
	case CommitObject, TreeObject, BlobObject, TagObject:
	case OFSDeltaObject:
		if b, err = src.ReadByte(); err != nil {
			return e, 0, err
		}
		dist := int64(b & 0x7f)
		for b&0x80 != 0 {
			if b, err = src.ReadByte(); err != nil {
				return e, 0, err
			}
			if dist > 1<<48 {
				return e, 0, errors.New("bad delta offset")
			}
			dist = (dist+1)<<7 | int64(b&0x7f)
		}
		if off < 0 {
			break
		}
		if e.baseOff = off - dist; dist <= 0 || e.baseOff < 12 {
			return e, 0, errors.New("bad delta offset")
		}
	case REFDeltaObject:
		if _, err := io.ReadFull(src, e.baseID[:]); err != nil {
			return e, 0, err
		}
	default:
		return e, 0, fmt.Errorf("bad object type %d", e.typ)
	}
	return e, size, nil
}

// objectSize returns the size of the object at off: from the entry's
// header, or for a delta the result size the delta records (the delta is
// inflated, which checks it, but not applied).
func (p *packFile) objectSize(off int64) (int64, error) {
	in := inflaters.Get().(*packInflater)
	e, size, _, err := p.entryHeader(in, off)
	inflaters.Put(in)
	if err != nil || (e.typ != OFSDeltaObject && e.typ != REFDeltaObject) {
		return size, err
	}
	if e, err = p.entry(off); err != nil {
		return 0, err
	}
	_, rest, _ := deltaVarint(e.data)
	n, _, ok := deltaVarint(rest)
	if !ok {
		return 0, errors.New("bad delta")
	}
	return int64(n), nil
}

// applyDeltaTo rebuilds an object of src's type from src and a delta.
func applyDeltaTo(src Object, delta []byte) (Object, error) {
	out, err := applyDelta(src.Data, delta)
	if err != nil {
		return Object{}, err
	}
	return Object{Type: src.Type, Data: out}, nil
}
