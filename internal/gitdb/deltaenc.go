package gitdb

import (
	"encoding/binary"
	"math/bits"
)

// A delta encoder for gc: the source is indexed once (a hash of every
// deltaBlock-byte block at block-aligned positions), then each target
// is scanned with a rolling hash of the same width; a hit is checked
// byte by byte and grown both ways into one copy instruction. gc
// compares every target with several sources of a window, so indexing
// each source once, not once per pair, is what makes it cheap.

const (
	deltaBlock = 16
	// deltaChainCheck bounds the candidate blocks checked per hit: long
	// runs of one repeated block would otherwise make a scan quadratic.
	deltaChainCheck = 8
	rollPrime       = 16777619
)

// rollOut is rollPrime^(deltaBlock-1): the weight of the byte leaving
// the window.
var rollOut = func() uint32 {
	p := uint32(1)
	for i := 0; i < deltaBlock-1; i++ {
		p *= rollPrime
	}
	return p
}()

func blockHash(b []byte) uint32 {
	var h uint32
	for _, c := range b[:deltaBlock] {
		h = h*rollPrime + uint32(c)
	}
	return h
}

// deltaIndex is a source's block index: head[hash&mask] is the last
// block with that hash (plus one; 0 is none), next chains the others.
type deltaIndex struct {
	src  []byte
	mask uint32
	head []int32
	next []int32
	hash []uint32 // of each block (plus one), to skip colliding slots
}

func newDeltaIndex(src []byte) *deltaIndex { return new(deltaIndex).reset(src) }

// reset indexes src, reusing the index's tables (gc indexes one source
// per object of its window).
func (ix *deltaIndex) reset(src []byte) *deltaIndex {
	blocks := len(src) / deltaBlock
	size := 1
	for size < 2*blocks {
		size <<= 1
	}
	ix.src, ix.mask = src, uint32(size-1)
	ix.head = resize(ix.head, size)
	clear(ix.head)
	ix.next = resize(ix.next, blocks+1)
	ix.hash = resize(ix.hash, blocks+1)
	for b := 0; b < blocks; b++ {
		bh := blockHash(src[b*deltaBlock:])
		ix.hash[b+1] = bh
		slot := bh & ix.mask
		ix.next[b+1] = ix.head[slot]
		ix.head[slot] = int32(b + 1)
	}
	return ix
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// delta returns a git delta that turns the index's source into tgt,
// built in buf's space, or nil when it would be longer than maxSize.
func (ix *deltaIndex) delta(tgt []byte, maxSize int, buf []byte) []byte {
	src := ix.src
	out := buf[:0]
	out = appendDeltaVarint(out, len(src))
	out = appendDeltaVarint(out, len(tgt))
	lit := 0 // start of the pending literal run
	p := 0
	var h uint32
	if len(tgt) >= deltaBlock {
		h = blockHash(tgt)
	}
	for p+deltaBlock <= len(tgt) {
		bestOff, bestLen, bestBack := 0, 0, 0
		checked := 0
		for b := ix.head[h&ix.mask]; b != 0 && checked < deltaChainCheck; b = ix.next[b] {
			if ix.hash[b] != h {
				continue
			}
			checked++
			s := int(b-1) * deltaBlock
			n := matchLen(src[s:], tgt[p:])
			if n < deltaBlock {
				continue
			}
			back := 0
			for back < p-lit && back < s && src[s-back-1] == tgt[p-back-1] {
				back++
			}
			if n+back > bestLen+bestBack {
				bestOff, bestLen, bestBack = s, n, back
			}
		}
		if bestLen == 0 {
			// Literal bytes cost one each: give up once they alone are
			// over the limit.
			if len(out)+(p-lit) > maxSize {
				return nil
			}
			if p+deltaBlock < len(tgt) {
				h = (h-uint32(tgt[p])*rollOut)*rollPrime + uint32(tgt[p+deltaBlock])
			}
			p++
			continue
		}
		out = appendDeltaInsert(out, tgt[lit:p-bestBack])
		out = appendDeltaCopy(out, bestOff-bestBack, bestLen+bestBack)
		if len(out) > maxSize {
			return nil
		}
		p += bestLen
		lit = p
		if p+deltaBlock <= len(tgt) {
			h = blockHash(tgt[p:])
		}
	}
	out = appendDeltaInsert(out, tgt[lit:])
	if len(out) > maxSize {
		return nil
	}
	return out
}

// matchLen returns the length of the common prefix of a and b, eight
// bytes at a time.
func matchLen(a, b []byte) int {
	n := 0
	for n+8 <= len(a) && n+8 <= len(b) {
		if x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:]); x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// appendDeltaVarint appends a size as a delta's header encodes it (7
// bits per byte, least significant first).
func appendDeltaVarint(out []byte, n int) []byte {
	for n >= 0x80 {
		out = append(out, byte(n)|0x80)
		n >>= 7
	}
	return append(out, byte(n))
}

// appendDeltaInsert appends literal bytes, at most 127 per instruction.
func appendDeltaInsert(out, lit []byte) []byte {
	for len(lit) > 0 {
		n := min(len(lit), 127)
		out = append(out, byte(n))
		out = append(out, lit[:n]...)
		lit = lit[n:]
	}
	return out
}

// appendDeltaCopy appends copy instructions of n bytes from off of the
// source, at most 64 KiB each; zero bytes of the offset and size are
// left out, as their bits in the opcode say.
func appendDeltaCopy(out []byte, off, n int) []byte {
	for n > 0 {
		size := min(n, 0x10000)
		op := byte(0x80)
		at := len(out)
		out = append(out, 0)
		for i := 0; i < 4; i++ {
			if b := byte(off >> (8 * i)); b != 0 {
				op |= 1 << i
				out = append(out, b)
			}
		}
		if size != 0x10000 { // 0x10000 is encoded as no size bytes
			for i := 0; i < 3; i++ {
				if b := byte(size >> (8 * i)); b != 0 {
					op |= 1 << (4 + i)
					out = append(out, b)
				}
			}
		}
		out[at] = op
		off += size
		n -= size
	}
	return out
}
