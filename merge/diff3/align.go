// SPDX-License-Identifier: LGPL-2.1-or-later
//
// This file is a Go translation of parts of LibXDiff as shipped in git's
// xdiff/ directory (xdiffi.c: xdl_split, xdl_recs_cmp, xdl_do_diff):
//   LibXDiff by Davide Libenzi ( File Differential Library )
//   Copyright (C) 2003-2006 Davide Libenzi, Johannes E. Schindelin
// It is distributed under the GNU Lesser General Public License, version 2.1
// or (at your option) any later version, like the code it translates. See
// "Licensing" in README.md.

package diff3

import "math"

// This file is the alignment step of git's Myers diff: the divide and
// conquer on the "middle snake" of Myers' O(ND) algorithm, searched from
// both ends at once, with xdiff's exploration order and its two cost
// cut-offs. Two minimal diffs of the same files can pair different lines
// (which of two equal lines a deleted line was); a merge built on a
// different pairing than git's is clean where git's conflicts, or the other
// way round. So the alignment is git's own, choice for choice.

// Constants of xdiff's xdl_do_diff and xdl_split.
const (
	snakeCount  = 20  // XDL_SNAKE_CNT: a diagonal run this long is a "snake"
	heurMinCost = 256 // XDL_HEUR_MIN_COST: edit cost before the snake heuristic
	maxCostMin  = 256 // XDL_MAX_COST_MIN: least edit cost before giving up on minimality
	kHeur       = 4   // XDL_K_HEUR: how far ahead a snake must be to be taken
)

// aligner marks the lines of a deleted and the lines of b inserted by a
// Myers diff of a and b; a and b are the lines taking part in the diff
// (after xdl_cleanup_records), as xdiff's rindex arrays.
type aligner struct {
	a, b       []lineID
	chgA, chgB []bool
	// kvdf and kvdb are the furthest-reaching x for each diagonal d = x - y,
	// forward and backward, stored at index d+koff.
	kvdf, kvdb []int32
	koff       int
	maxCost    int // past this cost, take the best split found so far
}

// split is where xdl_split divides the problem, and whether each half must
// be solved minimally (no cut-offs).
type split struct {
	i1, i2       int
	minLo, minHi bool
}

// align fills chgA and chgB (one mark per line of a and b) with the changes
// of a Myers diff choosing as git's xdiff does, without XDF_NEED_MINIMAL
// (git merge-file's default). kv is work space of at least
// 2·(len(a)+len(b)+4) entries.
func align(a, b []lineID, chgA, chgB []bool, kv []int32) {
	ndiags := len(a) + len(b) + 3
	x := &aligner{
		a: a, b: b, chgA: chgA, chgB: chgB,
		kvdf:    kv[:ndiags+1],
		kvdb:    kv[ndiags+1 : 2*(ndiags+1)],
		koff:    len(b) + 1,
		maxCost: max(bogoSqrtUncapped(ndiags), maxCostMin),
	}
	x.compare(0, len(a), 0, len(b), false)
}

// bogoSqrtUncapped is xdl_bogosqrt: a power of two near 2·√n.
func bogoSqrtUncapped(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

// compare is xdl_recs_cmp: it strips the common ends of a[off1:lim1] and
// b[off2:lim2], marks what is left when one side is empty, and otherwise
// splits the problem in two and recurses.
func (x *aligner) compare(off1, lim1, off2, lim2 int, needMin bool) {
	for off1 < lim1 && off2 < lim2 && x.a[off1] == x.b[off2] {
		off1++
		off2++
	}
	for off1 < lim1 && off2 < lim2 && x.a[lim1-1] == x.b[lim2-1] {
		lim1--
		lim2--
	}
	switch {
	case off1 == lim1:
		for ; off2 < lim2; off2++ {
			x.chgB[off2] = true
		}
	case off2 == lim2:
		for ; off1 < lim1; off1++ {
			x.chgA[off1] = true
		}
	default:
		s := x.split(off1, lim1, off2, lim2, needMin)
		x.compare(off1, s.i1, off2, s.i2, s.minLo)
		x.compare(s.i1, lim1, s.i2, lim2, s.minHi)
	}
}

// split is xdl_split: it extends the forward and backward searches one edit
// at a time until they meet (the middle snake of a minimal diff) or, unless
// needMin, until a cut-off picks a good enough split.
func (x *aligner) split(off1, lim1, off2, lim2 int, needMin bool) split {
	a, b := x.a, x.b
	k := x.koff
	kvdf, kvdb := x.kvdf, x.kvdb
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid
	kvdf[fmid+k] = int32(off1)
	kvdb[bmid+k] = int32(lim1)
	const lineMax = math.MaxInt32 // xdiff's XDL_LINE_MAX, for int32 paths

	for ec := 1; ; ec++ {
		gotSnake := false

		// Forward: extend each diagonal's furthest path by one edit.
		if fmin > dmin {
			fmin--
			kvdf[fmin-1+k] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			kvdf[fmax+1+k] = -1
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			var i1 int
			if kvdf[d-1+k] >= kvdf[d+1+k] {
				i1 = int(kvdf[d-1+k]) + 1
			} else {
				i1 = int(kvdf[d+1+k])
			}
			prev1 := i1
			i2 := i1 - d
			for i1 < lim1 && i2 < lim2 && a[i1] == b[i2] {
				i1++
				i2++
			}
			if i1-prev1 > snakeCount {
				gotSnake = true
			}
			kvdf[d+k] = int32(i1)
			if odd && bmin <= d && d <= bmax && int(kvdb[d+k]) <= i1 {
				return split{i1: i1, i2: i2, minLo: true, minHi: true}
			}
		}

		// Backward, the same from the ends.
		if bmin > dmin {
			bmin--
			kvdb[bmin-1+k] = lineMax
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			kvdb[bmax+1+k] = lineMax
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			var i1 int
			if kvdb[d-1+k] < kvdb[d+1+k] {
				i1 = int(kvdb[d-1+k])
			} else {
				i1 = int(kvdb[d+1+k]) - 1
			}
			prev1 := i1
			i2 := i1 - d
			for i1 > off1 && i2 > off2 && a[i1-1] == b[i2-1] {
				i1--
				i2--
			}
			if prev1-i1 > snakeCount {
				gotSnake = true
			}
			kvdb[d+k] = int32(i1)
			if !odd && fmin <= d && d <= fmax && i1 <= int(kvdf[d+k]) {
				return split{i1: i1, i2: i2, minLo: true, minHi: true}
			}
		}

		if needMin {
			continue
		}

		// The snake heuristic: once the cost is high, a path that got far
		// ahead along a long diagonal run is a good enough split.
		if gotSnake && ec > heurMinCost {
			if s, ok := x.forwardSnake(off1, lim1, off2, lim2, fmin, fmax, fmid, ec); ok {
				return s
			}
			if s, ok := x.backwardSnake(off1, lim1, off2, lim2, bmin, bmax, bmid, ec); ok {
				return s
			}
		}

		// Too costly: split at the furthest point either search reached.
		if ec >= x.maxCost {
			fbest, fbest1 := -1, -1
			for d := fmax; d >= fmin; d -= 2 {
				i1 := min(int(kvdf[d+k]), lim1)
				i2 := i1 - d
				if lim2 < i2 {
					i1, i2 = lim2+d, lim2
				}
				if fbest < i1+i2 {
					fbest, fbest1 = i1+i2, i1
				}
			}
			bbest, bbest1 := lineMax, lineMax
			for d := bmax; d >= bmin; d -= 2 {
				i1 := max(off1, int(kvdb[d+k]))
				i2 := i1 - d
				if i2 < off2 {
					i1, i2 = off2+d, off2
				}
				if i1+i2 < bbest {
					bbest, bbest1 = i1+i2, i1
				}
			}
			if (lim1+lim2)-bbest < fbest-(off1+off2) {
				return split{i1: fbest1, i2: fbest - fbest1, minLo: true}
			}
			return split{i1: bbest1, i2: bbest - bbest1, minHi: true}
		}
	}
}

// forwardSnake looks among the forward paths for the one furthest ahead
// that ends in a diagonal run of snakeCount lines.
func (x *aligner) forwardSnake(off1, lim1, off2, lim2, fmin, fmax, fmid, ec int) (split, bool) {
	best := 0
	var s split
	for d := fmax; d >= fmin; d -= 2 {
		dd := d - fmid
		if dd < 0 {
			dd = -dd
		}
		i1 := int(x.kvdf[d+x.koff])
		i2 := i1 - d
		v := (i1 - off1) + (i2 - off2) - dd
		if v > kHeur*ec && v > best &&
			off1+snakeCount <= i1 && i1 < lim1 &&
			off2+snakeCount <= i2 && i2 < lim2 {
			for k := 1; x.a[i1-k] == x.b[i2-k]; k++ {
				if k == snakeCount {
					best = v
					s = split{i1: i1, i2: i2, minLo: true}
					break
				}
			}
		}
	}
	return s, best > 0
}

// backwardSnake is forwardSnake for the backward paths.
func (x *aligner) backwardSnake(off1, lim1, off2, lim2, bmin, bmax, bmid, ec int) (split, bool) {
	best := 0
	var s split
	for d := bmax; d >= bmin; d -= 2 {
		dd := d - bmid
		if dd < 0 {
			dd = -dd
		}
		i1 := int(x.kvdb[d+x.koff])
		i2 := i1 - d
		v := (lim1 - i1) + (lim2 - i2) - dd
		if v > kHeur*ec && v > best &&
			off1 < i1 && i1 <= lim1-snakeCount &&
			off2 < i2 && i2 <= lim2-snakeCount {
			for k := 0; x.a[i1+k] == x.b[i2+k]; k++ {
				if k == snakeCount-1 {
					best = v
					s = split{i1: i1, i2: i2, minHi: true}
					break
				}
			}
		}
	}
	return s, best > 0
}
