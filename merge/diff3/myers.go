package diff3

import "math"

// This file aligns two sequences of line IDs with E. W. Myers' difference
// algorithm ("An O(ND) Difference Algorithm and Its Variations",
// Algorithmica 1(2), 1986), in the linear-space form the paper also gives.
//
// An edit script is a path through the grid of a's lines (x) and b's lines
// (y) from the top-left corner to the bottom-right one: a step right
// deletes a line of a, a step down inserts a line of b, and a diagonal step
// keeps a line the two have in common, at no cost. A path's diagonal k is
// x-y. The search is run from both corners at once, one more edit at a time,
// keeping for each diagonal only how far along it the cheapest paths reach.
// When a forward path and a backward path meet on a diagonal, the point
// where the last one of them left its previous diagonal lies on a shortest
// path: the problem is split there and each half is solved the same way.

// unreachedFwd and unreachedBwd mark a diagonal that no path of the
// current cost reaches inside the grid.
const (
	unreachedFwd = -1
	unreachedBwd = math.MaxInt32
)

// aligner marks, for two sequences of line IDs, the lines of a that a
// shortest edit script deletes and the lines of b that it inserts.
type aligner struct {
	a, b       []lineID
	delA, insB []bool
	// fwd[k+offset] is the furthest x that forward paths reach on diagonal
	// k; bwd[k+offset] the least x that backward paths reach.
	fwd, bwd []int32
	offset   int
	// costLimit bounds the search for one split: past it, the split is
	// taken at the path that got furthest (see bestEffortSplit).
	costLimit int
	// budget is the work the searches may still do, in diagonals visited
	// and lines followed along them; capped is set once it ran out (see
	// align).
	budget int
	capped bool
}

// align fills delA and insB for a and b, doing at most budget work, and
// returns the budget left (below zero once it ran out) and whether it ran
// out; the aligner's buffers are reused.
//
// The work is bounded twice. Each split stops looking for a shortest path
// past costLimit edits, which bounds one split; and all the splits of the
// alignment together may visit at most budget diagonals and lines (the
// caller's, see diffBudget), which bounds the whole: some inputs (files of
// a few distinct lines, reordered) reach costLimit on every split and
// would cost the number of lines times costLimit, minutes for a
// million-line file. Past the budget, every part of the grid not solved
// yet is taken as changed whole: the lines it pairs are still equal lines
// in order, so the edit script stays a true one (a merge built on it only
// conflicts more, never loses a change), just not a short one.
func (al *aligner) align(a, b []lineID, delA, insB []bool, budget int) (left int, capped bool) {
	al.a, al.b, al.delA, al.insB = a, b, delA, insB
	al.budget, al.capped = budget, false
	n := len(a) + len(b) + 3
	al.fwd = resize(al.fwd, n) // a search writes each entry before reading it
	al.bwd = resize(al.bwd, n)
	al.offset = len(b) + 1
	al.costLimit = costLimitFor(len(a) + len(b))
	al.solve(0, len(a), 0, len(b))
	return al.budget, al.capped
}

// resize returns buf with length n, reusing its memory if it can, without
// clearing it.
func resize(buf []int32, n int) []int32 {
	if cap(buf) < n {
		return make([]int32, n)
	}
	return buf[:n]
}

// costLimitFor is the number of edits one split's search may spend before
// it settles for a good rather than a shortest split, for an alignment of
// that many lines (of both files): 256, or twice the square root of the
// lines when that is more. Below it a diff is always a shortest one; above
// it the search stays near linear in the size of files with little in
// common. git merge-file has such a limit too: the value was chosen because,
// of the simple rules tried, it makes the most diffs of large files come
// out as git's (see TestOracleGitMergeFile).
func costLimitFor(lines int) int {
	return max(256, int(2*math.Sqrt(float64(lines))))
}

// solve marks the edits between a[a0:a1] and b[b0:b1]. Common leading and
// trailing lines are kept; what remains is split in two and each half solved,
// the second by the loop rather than by recursion.
func (al *aligner) solve(a0, a1, b0, b1 int) {
	a, b := al.a, al.b
	for {
		for a0 < a1 && b0 < b1 && a[a0] == b[b0] {
			a0++
			b0++
		}
		for a0 < a1 && b0 < b1 && a[a1-1] == b[b1-1] {
			a1--
			b1--
		}
		if a0 == a1 || b0 == b1 || al.capped {
			for y := b0; y < b1; y++ {
				al.insB[y] = true
			}
			for x := a0; x < a1; x++ {
				al.delA[x] = true
			}
			return
		}
		x, y, ok := al.split(a0, a1, b0, b1)
		if !ok {
			continue // out of budget: the box is taken as changed whole
		}
		al.solve(a0, x, b0, y)
		a0, b0 = x, y
	}
}

// split returns a point strictly inside the box from (a0, b0) to (a1, b1),
// which have no common first or last line, through which a shortest path
// between the corners goes; false, and capped set, when the search
// ran out of budget first.
func (al *aligner) split(a0, a1, b0, b1 int) (int, int, bool) {
	a, b, fwd, bwd, o := al.a, al.b, al.fwd, al.bwd, al.offset
	fk, bk := a0-b0, a1-b1 // the diagonals of the two corners
	odd := (bk-fk)&1 != 0
	kmin, kmax := a0-b1, a1-b0 // the diagonals that cross the box
	fwd[fk+o], bwd[bk+o] = int32(a0), int32(a1)
	flo, fhi, blo, bhi := fk, fk, bk, bk // diagonals searched at the current cost
	work := 0                            // diagonals visited and lines followed, charged to the budget per edit
	for d := 1; ; d++ {
		if al.budget -= work; al.budget < 0 {
			al.capped = true
			return 0, 0, false
		}
		if d > al.costLimit {
			x, y := al.bestEffortSplit(a0, a1, b0, b1, flo, fhi, blo, bhi)
			return x, y, true
		}
		// One more edit forward: each diagonal is entered from a neighbour,
		// rightwards (deleting a line of a) or downwards (inserting a line of
		// b), whichever gets further, then followed while the lines match.
		plo, phi := flo, fhi
		flo, fhi = diagonalRange(fk, d, kmin, kmax)
		work = (fhi-flo)/2 + 1 // every other diagonal of the range
		for k := fhi; k >= flo; k -= 2 {
			x := unreachedFwd
			if k-1 >= plo && k-1 <= phi {
				if v := int(fwd[k-1+o]); v != unreachedFwd && v < a1 {
					x = v + 1
				}
			}
			if k+1 >= plo && k+1 <= phi {
				if v := int(fwd[k+1+o]); v != unreachedFwd && v-k <= b1 && v > x {
					x = v
				}
			}
			if x == unreachedFwd {
				fwd[k+o] = unreachedFwd
				continue
			}
			x0 := x
			for y := x - k; x < a1 && y < b1 && a[x] == b[y]; y++ {
				x++
			}
			work += x - x0
			fwd[k+o] = int32(x)
			if odd && k >= blo && k <= bhi && int(bwd[k+o]) <= x {
				return x0, x0 - k, true
			}
		}
		// One more edit backward, leftwards or upwards.
		plo, phi = blo, bhi
		blo, bhi = diagonalRange(bk, d, kmin, kmax)
		work += (bhi-blo)/2 + 1
		for k := bhi; k >= blo; k -= 2 {
			x := unreachedBwd
			if k+1 >= plo && k+1 <= phi {
				if v := int(bwd[k+1+o]); v != unreachedBwd && v > a0 {
					x = v - 1
				}
			}
			if k-1 >= plo && k-1 <= phi {
				if v := int(bwd[k-1+o]); v != unreachedBwd && v-k >= b0 && v < x {
					x = v
				}
			}
			if x == unreachedBwd {
				bwd[k+o] = unreachedBwd
				continue
			}
			x0 := x
			for y := x - k; x > a0 && y > b0 && a[x-1] == b[y-1]; y-- {
				x--
			}
			work += x0 - x
			bwd[k+o] = int32(x)
			if !odd && k >= flo && k <= fhi && int(fwd[k+o]) != unreachedFwd && int(fwd[k+o]) >= x {
				return x0, x0 - k, true
			}
		}
	}
}

// diagonalRange is the range of diagonals that paths of cost d from a
// corner on diagonal k0 can end on, within [kmin, kmax]: every other
// diagonal from k0-d to k0+d.
func diagonalRange(k0, d, kmin, kmax int) (lo, hi int) {
	lo, hi = k0-d, k0+d
	if lo < kmin {
		lo = kmin + (kmin-lo)&1
	}
	if hi > kmax {
		hi = kmax - (hi-kmax)&1
	}
	return lo, hi
}

// bestEffortSplit is the split of a search that has spent its cost limit:
// the furthest point that the forward paths reached (in x+y) or the
// backward paths reached back, whichever advanced further from its corner.
// The diff is then no longer always a shortest one, but its cost stays
// bounded on files with little in common.
func (al *aligner) bestEffortSplit(a0, a1, b0, b1, flo, fhi, blo, bhi int) (int, int) {
	o := al.offset
	// Diagonals are visited from the highest to the lowest, as in the
	// search, and the first of equally good points wins. A point at the far
	// corner would split nothing off.
	bestF, fx := -1, 0
	for k := fhi; k >= flo; k -= 2 {
		if x := int(al.fwd[k+o]); x != unreachedFwd && x+x-k > bestF && (x != a1 || x-k != b1) {
			bestF, fx = x+x-k, x
		}
	}
	bestB, bx := math.MaxInt, 0
	for k := bhi; k >= blo; k -= 2 {
		if x := int(al.bwd[k+o]); x != unreachedBwd && x+x-k < bestB && (x != a0 || x-k != b0) {
			bestB, bx = x+x-k, x
		}
	}
	if bestB == math.MaxInt || bestF >= 0 && bestF-(a0+b0) >= (a1+b1)-bestB {
		return fx, bestF - fx
	}
	return bx, bestB - bx
}
