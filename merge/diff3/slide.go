package diff3

// A run of changed lines can often sit in several places with the same
// cost: deleting the second "}" of "}\n}\n" or the first is one deletion
// either way. Which place a diff picks decides where hunks start and end,
// and so whether the changes of a merge's two sides touch. git merge-file
// settles such a run, observed from its output, like this:
//
//   - the run is moved as far down as it goes (each step down keeps the
//     run's first line and changes the line after it, which must be equal),
//     joining any run it meets on the way;
//   - if at some place on its way the run faced changed lines in the other
//     file (the two together then are a replacement rather than a pure
//     deletion or insertion), it goes back up to the lowest such place.
//
// The runs are settled from the top of the file down.

// run is a run of changed lines [start, end) in one file, and the run of
// changed lines [otherStart, otherEnd) facing it in the other file: the
// changed lines between the same two pairs of unchanged lines. A run facing
// no change has otherStart == otherEnd.
type run struct {
	start, end           int
	otherStart, otherEnd int
}

// slide settles every run of changed lines of a file (ids, its change marks
// chg) against the change marks of the other file of the diff, other.
func slide(ids []lineID, chg, other []bool) {
	i, j := 0, 0 // positions in the two files with as many unchanged lines before them
	for {
		r := run{start: i, end: i, otherStart: j, otherEnd: j}
		for r.end < len(chg) && chg[r.end] {
			r.end++
		}
		for r.otherEnd < len(other) && other[r.otherEnd] {
			r.otherEnd++
		}
		if r.start < r.end {
			r = settle(ids, chg, other, r)
		}
		if r.end >= len(chg) {
			return
		}
		i, j = r.end+1, r.otherEnd+1 // past a pair of unchanged lines
	}
}

// settle moves run r to its place (see the file comment) and returns it.
func settle(ids []lineID, chg, other []bool, r run) run {
	for {
		size := r.end - r.start
		for r.start > 0 && ids[r.start-1] == ids[r.end-1] {
			r = up(chg, other, r)
		}
		faced := -1 // the lowest end at which r faced a change
		if r.otherStart < r.otherEnd {
			faced = r.end
		}
		for r.end < len(ids) && ids[r.start] == ids[r.end] {
			r = down(chg, other, r)
			if r.otherStart < r.otherEnd {
				faced = r.end
			}
		}
		if r.end-r.start == size { // it joined no other run: settled
			for faced >= 0 && r.end > faced {
				r = up(chg, other, r)
			}
			return r
		}
	}
}

// up moves r one line up: the line before it becomes changed and its last
// line unchanged. A run just above joins it.
func up(chg, other []bool, r run) run {
	r.start--
	r.end--
	chg[r.start], chg[r.end] = true, false
	for r.start > 0 && chg[r.start-1] {
		r.start--
	}
	// One unchanged line less before the run: it now faces the other
	// file's changes one pair of unchanged lines earlier.
	r.otherEnd = r.otherStart - 1
	r.otherStart = r.otherEnd
	for r.otherStart > 0 && other[r.otherStart-1] {
		r.otherStart--
	}
	return r
}

// down moves r one line down: its first line becomes unchanged and the line
// after it changed. A run just below joins it.
func down(chg, other []bool, r run) run {
	chg[r.start], chg[r.end] = false, true
	r.start++
	r.end++
	for r.end < len(chg) && chg[r.end] {
		r.end++
	}
	r.otherStart = r.otherEnd + 1
	r.otherEnd = r.otherStart
	for r.otherEnd < len(other) && other[r.otherEnd] {
		r.otherEnd++
	}
	return r
}
