package diff3

import "hash/maphash"

// lineID numbers the distinct lines of one merge: two lines are equal
// exactly when their IDs are, so the diff compares integers, not strings.
type lineID int32

// interner gives each distinct line its lineID, numbered in order of first
// appearance. It is an open-addressing hash table of IDs rather than a Go
// map: for the few thousand lines of a skill file it touches a third of the
// memory, and in a short merge most of the time goes to memory touched for
// the first time (page faults), not to hashing.
type interner struct {
	seed  maphash.Seed
	slots []lineID // ID+1 of the line that hashed to each slot; 0: empty
	lines []string // the text of each ID
}

func newInterner(size int) *interner {
	n := 64
	for 3*n < 4*size {
		n <<= 1
	}
	return &interner{seed: maphash.MakeSeed(), slots: make([]lineID, n), lines: make([]string, 0, size+size/4)}
}

// count is the number of distinct lines seen: IDs are below it.
func (in *interner) count() int { return len(in.lines) }

func (in *interner) id(l string) lineID {
	mask := uint64(len(in.slots) - 1)
	for i := maphash.String(in.seed, l) & mask; ; i = (i + 1) & mask {
		s := in.slots[i]
		if s == 0 {
			id := lineID(len(in.lines))
			in.lines = append(in.lines, l)
			in.slots[i] = id + 1
			if 4*len(in.lines) > 3*len(in.slots) {
				in.grow()
			}
			return id
		}
		if in.lines[s-1] == l {
			return s - 1
		}
	}
}

// grow doubles the table, keeping it at most three quarters full.
func (in *interner) grow() {
	in.slots = make([]lineID, 2*len(in.slots))
	mask := uint64(len(in.slots) - 1)
	for id, l := range in.lines {
		i := maphash.String(in.seed, l) & mask
		for in.slots[i] != 0 {
			i = (i + 1) & mask
		}
		in.slots[i] = lineID(id + 1)
	}
}

func (in *interner) intern(l lines) []lineID {
	ids := make([]lineID, l.n())
	for i := range ids {
		ids[i] = in.id(l.line(i))
	}
	return ids
}

// internLike interns lines that are mostly the lines of a reference file
// (a side of the merge and the base): it walks both, and a line equal to the
// reference's next line takes its ID without a map lookup. After a changed
// line it picks up the walk where that line occurs in the reference. It
// gives the same IDs as intern, with a lookup only per changed line.
func (in *interner) internLike(l, ref lines, refIDs []lineID) []lineID {
	pos := make(map[lineID]int) // where in ref a looked-up line was last seen
	ids := make([]lineID, l.n())
	j := 0
	for i := range ids {
		line := l.line(i)
		if j < ref.n() && line == ref.line(j) {
			ids[i] = refIDs[j]
			j++
			continue
		}
		id := in.id(line)
		ids[i] = id
		if p, ok := pos[id]; ok {
			j = p + 1
			continue
		}
		for k := j; k < ref.n() && k < j+64; k++ { // a short scan ahead to resynchronise
			if refIDs[k] == id {
				pos[id] = k
				j = k + 1
				break
			}
		}
	}
	return ids
}

// hunk is one change of an edit script between a preimage (lines a) and a
// postimage (lines b): lines [i1, i1+chg1) of a become [i2, i2+chg2) of b.
// It is xdiff's xdchange_t.
type hunk struct {
	i1, i2     int
	chg1, chg2 int
}

// differ computes line diffs, normalised the way git's xdiff does it so that
// merges agree with git merge-file. It keeps its work buffers from one diff
// to the next: a merge runs several, and memory touched for the first time
// is most of a short merge's cost. A differ serves one merge: countedFor
// recognises the base by its slice's address, which is sound while the
// merge's line ID slices are all alive.
type differ struct {
	nIDs       int
	chg        [2][]bool   // change marks, with a sentinel at each end
	count      [2][]int32  // occurrences of each line ID in a and in b
	keep       [2][]byte   // xdl_cleanup_records' classes, then kept or not
	kept       [2][]lineID // the lines that take part in the alignment
	idx        [2][]int32  // each kept line's index in its file
	keptChg    [2][]bool   // align's marks, per kept line
	kv         []int32     // align's paths
	countedFor []lineID    // the a whose counts are in count[0]
}

// grow returns buf resized to n, cleared, reusing its memory if it can.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// diff computes the edit script turning a into b. The common prefix and
// suffix are stripped first, the rest is aligned by git's Myers diff (see
// markChanges and align), and the changed-line marks are then compacted like
// xdl_change_compact (groups slid down as far as they go, then back up to
// line up with a change in the other file) and turned into hunks like
// xdl_build_script.
func (d *differ) diff(a, b []lineID) []hunk {
	d.chg[0] = grow(d.chg[0], len(a)+2) // index i+1 is line i; 0 and len+1 are sentinels
	d.chg[1] = grow(d.chg[1], len(b)+2)
	rchg1, rchg2 := d.chg[0], d.chg[1]

	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	switch {
	case len(ma) == 0:
		for j := range mb {
			rchg2[pre+j+1] = true
		}
	case len(mb) == 0:
		for i := range ma {
			rchg1[pre+i+1] = true
		}
	default:
		d.markChanges(a, b, pre, suf, rchg1[pre+1:], rchg2[pre+1:])
	}

	compact(a, rchg1, rchg2)
	compact(b, rchg2, rchg1)
	return buildScript(rchg1, rchg2, len(a), len(b))
}

// markChanges marks the lines of a deleted and the lines of b inserted on
// the way from a to b, leaving out their common prefix and suffix (pre and suf
// lines); chg1 and chg2 are indexed from the first line after the prefix.
//
// Like xdiff's xdl_cleanup_records, lines with no match in the other file are
// marked at once and left out of the diff proper, and so are lines with very
// many matches that sit among such lines. The remaining lines are aligned by
// align, git's own Myers diff (see "Merging" in the README's design notes for
// why not go-diff's).
func (d *differ) markChanges(a, b []lineID, pre, suf int, chg1, chg2 []bool) {
	dense := d.nIDs <= 4*(len(a)+len(b))+256
	var count1, count2 lineCounter // counted over the whole files, as xdiff does
	if dense {
		if len(a) == 0 || len(d.countedFor) != len(a) || &d.countedFor[0] != &a[0] {
			d.count[0] = countDense(d.count[0], a, d.nIDs)
			d.countedFor = a // the base, diffed against both sides
		}
		d.count[1] = countDense(d.count[1], b, d.nIDs)
		count1, count2 = lineCounter{dense: d.count[0]}, lineCounter{dense: d.count[1]}
	} else { // a small refinement diff in a large file
		count1, count2 = countSparse(a), countSparse(b)
	}
	for side, in := range [2]struct {
		lines []lineID
		other lineCounter
		n     int
		chg   []bool
	}{{a[pre : len(a)-suf], count2, len(a), chg1}, {b[pre : len(b)-suf], count1, len(b), chg2}} {
		d.keep[side] = grow(d.keep[side], len(in.lines))
		keptLines(d.keep[side], in.lines, in.other, bogoSqrt(in.n))
		d.kept[side] = grow(d.kept[side], len(in.lines))[:0]
		d.idx[side] = grow(d.idx[side], len(in.lines))[:0]
		for i, id := range in.lines {
			if d.keep[side][i] != 0 {
				d.kept[side] = append(d.kept[side], id)
				d.idx[side] = append(d.idx[side], int32(i))
			} else {
				in.chg[i] = true
			}
		}
		d.keptChg[side] = grow(d.keptChg[side], len(d.kept[side]))
	}
	d.kv = grow(d.kv, 2*(len(d.kept[0])+len(d.kept[1])+4))
	align(d.kept[0], d.kept[1], d.keptChg[0], d.keptChg[1], d.kv)
	for side, chg := range [2][]bool{chg1, chg2} {
		for k, c := range d.keptChg[side] {
			if c {
				chg[d.idx[side][k]] = true
			}
		}
	}
}

// lineCounter counts occurrences of line IDs: in a slice indexed by ID, or in
// a map when the IDs are many for the lines counted.
type lineCounter struct {
	dense  []int32
	sparse map[lineID]int32
}

func countDense(buf []int32, lines []lineID, nIDs int) []int32 {
	c := grow(buf, nIDs)
	for _, id := range lines {
		c[id]++
	}
	return c
}

func countSparse(lines []lineID) lineCounter {
	c := lineCounter{sparse: make(map[lineID]int32, len(lines))}
	for _, id := range lines {
		c.sparse[id]++
	}
	return c
}

func (c lineCounter) count(id lineID) int {
	if c.dense != nil {
		return int(c.dense[id])
	}
	return int(c.sparse[id])
}
