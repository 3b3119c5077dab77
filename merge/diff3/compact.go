// SPDX-License-Identifier: LGPL-2.1-or-later
//
// This file is a Go translation of parts of LibXDiff as shipped in git's
// xdiff/ directory (xmerge.c, xdiffi.c, xprepare.c):
//   LibXDiff by Davide Libenzi ( File Differential Library )
//   Copyright (C) 2003-2006 Davide Libenzi, Johannes E. Schindelin
// It is distributed under the GNU Lesser General Public License, version 2.1
// or (at your option) any later version, like the code it translates. See
// "Licensing" in README.md.

package diff3

// This file ports the parts of git's xdiff that shape a diff beyond the
// alignment itself: which lines take part in it (xdl_cleanup_records),
// sliding groups of changes (xdl_change_compact) and turning change marks
// into hunks (xdl_build_script). They make hunk boundaries, and so merges,
// come out as git's do.

// Limits of xdl_cleanup_records and xdl_clean_mmatch.
const (
	maxEqLimit    = 1024 // XDL_MAX_EQLIMIT
	simScanWindow = 100  // XDL_SIMSCAN_WINDOW
	kpDisRun      = 4    // XDL_KPDIS_RUN
)

// bogoSqrt is xdl_bogosqrt, capped at XDL_MAX_EQLIMIT: the number of matches
// past which a line counts as "matches everywhere".
func bogoSqrt(n int) int { return min(bogoSqrtUncapped(n), maxEqLimit) }

// keptLines decides, as xdl_cleanup_records, which lines take part in the
// diff: lines matched in the other file (other counts them), except lines
// matched mlim times or more that sit in a run of unmatched lines. keep has
// a byte per line; a kept line's byte is left non-zero.
func keptLines(keep []byte, lines []lineID, other lineCounter, mlim int) {
	for i, l := range lines { // the classes: 0 no match, 1 some, 2 many
		switch nm := other.count(l); {
		case nm == 0:
			keep[i] = 0
		case nm >= mlim:
			keep[i] = 2
		default:
			keep[i] = 1
		}
	}
	for i := range lines { // bit 2 marks a line set aside; the class stays in bits 0-1
		if keep[i] == 2 && cleanMultiMatch(keep, i, 0, len(lines)-1) {
			keep[i] |= 4
		}
	}
	for i := range lines {
		if keep[i]&4 != 0 {
			keep[i] = 0
		}
	}
}

// cleanMultiMatch is xdl_clean_mmatch: whether the many-matches line i sits
// in a run mostly made of unmatched lines, and so is better discarded.
func cleanMultiMatch(dis []byte, i, s, e int) bool { // dis holds classes in bits 0-1
	s = max(s, i-simScanWindow)
	e = min(e, i+simScanWindow)
	rdis0, rpdis0 := 0, 1
	for r := 1; i-r >= s; r++ {
		if c := dis[i-r] & 3; c == 0 {
			rdis0++
		} else if c == 2 {
			rpdis0++
		} else {
			break
		}
	}
	if rdis0 == 0 {
		return false
	}
	rdis1, rpdis1 := 0, 1
	for r := 1; i+r <= e; r++ {
		if c := dis[i+r] & 3; c == 0 {
			rdis1++
		} else if c == 2 {
			rpdis1++
		} else {
			break
		}
	}
	if rdis1 == 0 {
		return false
	}
	rdis1 += rdis0
	rpdis1 += rpdis0
	return rpdis1*kpDisRun < rpdis1+rdis1
}

// group is a run of changed lines [start, end) in one file, as xdiff's
// struct xdlgroup; indexes are line numbers (0-based).
type group struct{ start, end int }

// changeMarks gives the xdiff group helpers access to a file's lines and its
// changed marks (offset by one for the sentinels).
type changeMarks struct {
	lines []lineID // nil for the other file, whose lines are never compared
	n     int
	rchg  []bool
}

func (f *changeMarks) changed(i int) bool { return f.rchg[i+1] }
func (f *changeMarks) set(i int, v bool)  { f.rchg[i+1] = v }

func (f *changeMarks) groupInit() group {
	g := group{}
	for f.changed(g.end) {
		g.end++
	}
	return g
}

// next moves g to the next group; false at the end of the file.
func (f *changeMarks) next(g *group) bool {
	if g.end == f.n {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for f.changed(g.end) {
		g.end++
	}
	return true
}

// previous moves g to the previous group; false at the start of the file.
func (f *changeMarks) previous(g *group) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for f.changed(g.start - 1) {
		g.start--
	}
	return true
}

func (f *changeMarks) slideDown(g *group) bool {
	if g.end < f.n && f.lines[g.start] == f.lines[g.end] {
		f.set(g.start, false)
		f.set(g.end, true)
		g.start++
		g.end++
		for f.changed(g.end) {
			g.end++
		}
		return true
	}
	return false
}

func (f *changeMarks) slideUp(g *group) bool {
	if g.start > 0 && f.lines[g.start-1] == f.lines[g.end-1] {
		g.start--
		g.end--
		f.set(g.start, true)
		f.set(g.end, false)
		for f.changed(g.start - 1) {
			g.start--
		}
		return true
	}
	return false
}

// compact is xdl_change_compact without the indent heuristic (git merge-file
// does not enable it): every group of changed lines in a is slid down as far
// as it goes, then back up to the last position where it lines up with a
// group in the other file, merging groups that bump into each other.
func compact(a []lineID, rchg, rchgo []bool) {
	f := &changeMarks{lines: a, n: len(a), rchg: rchg}
	o := &changeMarks{n: len(rchgo) - 2, rchg: rchgo}
	g, go_ := f.groupInit(), o.groupInit()
	for {
		if g.end != g.start {
			var earliestEnd, groupSize int
			for {
				groupSize = g.end - g.start
				endMatchingOther := -1
				for f.slideUp(&g) {
					o.previous(&go_)
				}
				earliestEnd = g.end
				if go_.end > go_.start {
					endMatchingOther = g.end
				}
				for f.slideDown(&g) {
					o.next(&go_)
					if go_.end > go_.start {
						endMatchingOther = g.end
					}
				}
				if groupSize == g.end-g.start {
					if g.end != earliestEnd && endMatchingOther != -1 {
						for go_.end == go_.start {
							f.slideUp(&g)
							o.previous(&go_)
						}
					}
					break
				}
			}
		}
		if !f.next(&g) {
			break
		}
		o.next(&go_)
	}
}

// buildScript turns changed marks into hunks, as xdl_build_script: walking
// back from the end, pairing unchanged lines of both files.
func buildScript(rchg1, rchg2 []bool, n1, n2 int) []hunk {
	var rev []hunk
	for i1, i2 := n1, n2; i1 >= 0 || i2 >= 0; i1, i2 = i1-1, i2-1 {
		if rchg1[i1] || rchg2[i2] { // line i-1 of each file
			l1, l2 := i1, i2
			for rchg1[i1] {
				i1--
			}
			for rchg2[i2] {
				i2--
			}
			rev = append(rev, hunk{i1: i1, i2: i2, chg1: l1 - i1, chg2: l2 - i2})
		}
	}
	script := make([]hunk, len(rev))
	for k, h := range rev {
		script[len(rev)-1-k] = h
	}
	return script
}
