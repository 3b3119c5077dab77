package gitdb

import "errors"

// applyDelta rebuilds an object from its base and a git delta: the two
// sizes, then copy (from base) and insert (literal) instructions.
func applyDelta(base, delta []byte) ([]byte, error) {
	bad := errors.New("bad delta")
	srcSize, delta, ok1 := deltaVarint(delta)
	dstSize, delta, ok2 := deltaVarint(delta)
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

// deltaVarint decodes one of the two sizes a delta starts with (7 bits
// per byte, least significant first) and returns the bytes after it.
func deltaVarint(b []byte) (int, []byte, bool) {
	n, shift := 0, 0
	for len(b) > 0 && shift < 56 {
		c := b[0]
		b = b[1:]
		n |= int(c&0x7f) << shift
		if c&0x80 == 0 {
			return n, b, true
		}
		shift += 7
	}
	return 0, b, false
}
