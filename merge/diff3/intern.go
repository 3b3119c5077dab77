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
