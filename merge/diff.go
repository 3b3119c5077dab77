package merge

import "strings"

// splitLines splits text into lines, each keeping its terminating "\n" (and
// any "\r" before it), as git's xdiff records do. A last line without a final
// newline is kept as is, so joining the lines gives back text exactly.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(text, "\n")+1)
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, text[:i+1])
		text = text[i+1:]
	}
	return lines
}

// lineID numbers the distinct lines of one merge: two lines are equal
// exactly when their IDs are, so the diff compares integers, not strings.
type lineID int32

// interner gives each distinct line its lineID.
type interner struct {
	ids map[string]lineID
}

func newInterner(size int) *interner { return &interner{ids: make(map[string]lineID, size)} }

func (in *interner) id(l string) lineID {
	id, ok := in.ids[l]
	if !ok {
		id = lineID(len(in.ids))
		in.ids[l] = id
	}
	return id
}

func (in *interner) intern(lines []string) []lineID {
	ids := make([]lineID, len(lines))
	for i, l := range lines {
		ids[i] = in.id(l)
	}
	return ids
}

// internLike interns lines that are mostly the lines of a reference file
// (a side of the merge and the base): it walks both, and a line equal to the
// reference's next line takes its ID without a map lookup. After a changed
// line it picks up the walk where that line occurs in the reference. It
// gives the same IDs as intern, with a lookup only per changed line.
func (in *interner) internLike(lines, ref []string, refIDs []lineID) []lineID {
	pos := make(map[lineID]int) // where in ref a looked-up line was last seen
	ids := make([]lineID, len(lines))
	j := 0
	for i, l := range lines {
		if j < len(ref) && l == ref[j] {
			ids[i] = refIDs[j]
			j++
			continue
		}
		id := in.id(l)
		ids[i] = id
		if p, ok := pos[id]; ok {
			j = p + 1
			continue
		}
		for k := j; k < len(ref) && k < j+64; k++ { // a short scan ahead to resynchronise
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

// diffLines computes the line edit script turning a into b, normalised the
// way git's xdiff does it so that merges agree with git merge-file. nIDs
// bounds the line IDs.
//
// The alignment is git's Myers diff (see markChanges and align). The common prefix and suffix are stripped first, and the changed-line
// marks are then compacted like xdl_change_compact (groups slid down as far
// as they go, then back up to line up with a change in the other file) and
// turned into hunks like xdl_build_script.
func diffLines(a, b []lineID, nIDs int) []hunk {
	rchg1 := make([]bool, len(a)+2) // index i+1 is line i; 0 and len+1 are sentinels
	rchg2 := make([]bool, len(b)+2)

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
		markChanges(a, b, pre, suf, nIDs, rchg1[pre+1:], rchg2[pre+1:])
	}

	compact(a, rchg1, rchg2)
	compact(b, rchg2, rchg1)
	return buildScript(rchg1, rchg2, len(a), len(b))
}

// lineCounter counts occurrences of line IDs: in a slice when the IDs are
// few for the lines counted, in a map otherwise (small refinement diffs in
// a large file).
type lineCounter struct {
	dense  []int32
	sparse map[lineID]int32
}

func countLines(lines []lineID, nIDs int) lineCounter {
	if nIDs <= 4*len(lines)+256 {
		c := lineCounter{dense: make([]int32, nIDs)}
		for _, id := range lines {
			c.dense[id]++
		}
		return c
	}
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

// markChanges marks the lines of a deleted and the lines of b inserted on
// the way from a to b, leaving out their common prefix and suffix (pre and suf
// lines); chg1 and chg2 are indexed from the first line after the prefix.
//
// Like xdiff's xdl_cleanup_records, lines with no match in the other file are
// marked at once and left out of the diff proper, and so are lines with very
// many matches that sit among such lines. The remaining lines are aligned by
// align, git's own Myers diff (see "Merging" in the README's design notes for
// why not go-diff's).
func markChanges(a, b []lineID, pre, suf, nIDs int, chg1, chg2 []bool) {
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	count1 := countLines(a, nIDs) // counted over the whole files, as xdiff does
	count2 := countLines(b, nIDs)
	keep1 := keptLines(ma, count2, bogoSqrt(len(a)))
	keep2 := keptLines(mb, count1, bogoSqrt(len(b)))
	r1, idx1 := keptIDs(ma, keep1, chg1)
	r2, idx2 := keptIDs(mb, keep2, chg2)
	kchg1, kchg2 := make([]bool, len(r1)), make([]bool, len(r2))
	align(r1, r2, kchg1, kchg2)
	for k, c := range kchg1 {
		if c {
			chg1[idx1[k]] = true
		}
	}
	for k, c := range kchg2 {
		if c {
			chg2[idx2[k]] = true
		}
	}
}

// keptIDs returns the kept lines and each one's index in lines; lines not
// kept are marked changed in chg.
func keptIDs(lines []lineID, keep []bool, chg []bool) ([]lineID, []int) {
	kept := make([]lineID, 0, len(lines))
	idx := make([]int, 0, len(lines))
	for i, id := range lines {
		if keep[i] {
			kept = append(kept, id)
			idx = append(idx, i)
		} else {
			chg[i] = true
		}
	}
	return kept, idx
}
