package diff3

import "slices"

// hunk is one change of an edit script from lines a to lines b: lines
// [i1, i1+chg1) of a become lines [i2, i2+chg2) of b. Hunks are separated
// by at least one line the two files have in common.
type hunk struct {
	i1, i2     int
	chg1, chg2 int
}

// differ computes the line diffs of one merge. It keeps its work buffers
// from one diff to the next: a merge runs several, and in a short merge
// memory touched for the first time costs more than the diff itself.
type differ struct {
	nIDs    int
	del     []bool      // lines of a deleted
	ins     []bool      // lines of b inserted
	seen    [2][]uint8  // by line ID: the stamp of the last diff whose a (b) has it
	stamp   uint8       // the current diff's stamp
	matched [2][]lineID // the lines of each file that also occur in the other
	at      [2][]int32  // where each matched line is in its file
	mDel    []bool      // the aligner's marks over the matched lines
	mIns    []bool
	al      aligner
	// budget is the work each diff may do, for files of that many lines
	// (nil: diffBudget); capped is set when a diff ran out of it.
	budget func(lines int) int
	capped bool
	// shared, when set, is the one budget of every diff that follows,
	// instead of a budget of its own each (see narrowConflicts, which
	// diffs every conflict: their number is no bound).
	shared *int
}

// budgetPerLine is the work (diagonals visited and lines followed, see
// aligner.align) a diff may do per line of its two files. The diffs of
// real edits, even of thousands of edits in a 35,000-line file, stay far
// below it; a diff of two unrelated files of a few distinct lines reaches
// it within a fraction of a second, where it would otherwise take
// minutes for a million lines. git merge-file has such a cut-off too (see
// TestOracleGitMergeFile, which the budget never changes).
const budgetPerLine = 128

// budgetFor is the budget of a diff of files of n lines in all.
func (d *differ) budgetFor(n int) int {
	if d.budget != nil {
		return d.budget(n)
	}
	return diffBudget(n)
}

// diffBudget is the work a diff of files of n lines in all may do. The
// constant lets every diff of up to a few hundred lines run to its end
// (its work is at most a few times n²).
func diffBudget(n int) int { return budgetPerLine*n + 1<<20 }

// grow returns buf resized to n, cleared, reusing its memory if it can.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// diff computes the edit script turning a into b, in three steps:
//
//  1. The common first and last lines are kept, and in what remains every
//     line that does not occur at all in the other file is a change. Only
//     the other lines take part in the alignment, which makes it faster and
//     decides, among alignments of equal cost, the one git merge-file picks.
//  2. The aligner (myers.go) finds a shortest edit script for those lines.
//  3. Each run of changed lines is moved to its canonical place (slide.go)
//     and the marks are read off as hunks.
func (d *differ) diff(a, b []lineID) []hunk {
	d.del = grow(d.del, len(a))
	d.ins = grow(d.ins, len(b))
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	if pre+suf < len(a) || pre+suf < len(b) {
		d.markChanges(a, b, pre, len(a)-suf, pre, len(b)-suf)
	}
	slide(a, d.del, d.ins)
	slide(b, d.ins, d.del)
	return hunks(d.del, d.ins)
}

// markChanges marks the changes between a[a0:a1] and b[b0:b1]. Whether a
// line occurs in the other file is asked of the whole other file: a line
// that also occurs in the common first or last lines takes part.
func (d *differ) markChanges(a, b []lineID, a0, a1, b0, b1 int) {
	if a0 == a1 || b0 == b1 {
		mark(d.del, a0, a1)
		mark(d.ins, b0, b1)
		return
	}
	// Stamping the lines of each diff saves clearing the tables after it.
	d.stamp++
	if len(d.seen[0]) < d.nIDs || d.stamp == 0 {
		d.seen[0], d.seen[1] = grow(d.seen[0], d.nIDs), grow(d.seen[1], d.nIDs)
		d.stamp = 1
	}
	stamp := d.stamp
	for _, id := range a {
		d.seen[0][id] = stamp
	}
	for _, id := range b {
		d.seen[1][id] = stamp
	}
	sides := [2]struct {
		lines  []lineID
		start  int
		other  []uint8
		change []bool
	}{{a[a0:a1], a0, d.seen[1], d.del}, {b[b0:b1], b0, d.seen[0], d.ins}}
	for s, side := range sides {
		matched := slices.Grow(d.matched[s][:0], len(side.lines))
		at := slices.Grow(d.at[s][:0], len(side.lines))
		for i, id := range side.lines {
			if side.other[id] == stamp {
				matched = append(matched, id)
				at = append(at, int32(side.start+i))
			} else {
				side.change[side.start+i] = true
			}
		}
		d.matched[s], d.at[s] = matched, at
	}
	d.mDel = grow(d.mDel, len(d.matched[0]))
	d.mIns = grow(d.mIns, len(d.matched[1]))
	budget := d.budgetFor(len(a) + len(b))
	if d.shared != nil {
		budget = *d.shared
	}
	left, capped := d.al.align(d.matched[0], d.matched[1], d.mDel, d.mIns, budget)
	d.capped = d.capped || capped
	if d.shared != nil {
		*d.shared = left
	}
	for k, c := range d.mDel {
		if c {
			d.del[d.at[0][k]] = true
		}
	}
	for k, c := range d.mIns {
		if c {
			d.ins[d.at[1][k]] = true
		}
	}
}

func mark(marks []bool, i, j int) {
	for ; i < j; i++ {
		marks[i] = true
	}
}

// hunks reads the change marks of a (del) and b (ins) as hunks: the
// unchanged lines of the two files pair up in order, and each stretch
// between two pairs where either file has changes is a hunk.
func hunks(del, ins []bool) []hunk {
	var out []hunk
	i, j := 0, 0
	for i < len(del) || j < len(ins) {
		if (i < len(del) && del[i]) || (j < len(ins) && ins[j]) {
			h := hunk{i1: i, i2: j}
			for i < len(del) && del[i] {
				i++
			}
			for j < len(ins) && ins[j] {
				j++
			}
			h.chg1, h.chg2 = i-h.i1, j-h.i2
			out = append(out, h)
			continue
		}
		i++
		j++
	}
	return out
}
