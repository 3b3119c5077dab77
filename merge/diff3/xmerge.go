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

import "slices"

// This file is the heart of git's xdiff/xmerge.c, ported: how the two edit
// scripts (base to ours, base to theirs) become regions that are taken from
// one side, identical on both, or in conflict.

// appendHunk is xdl_append_merge: a hunk that touches or overlaps the
// previous one on either side is folded into it (a conflict if the modes
// differ).
func appendHunk(hunks []mergeHunk, h mergeHunk) []mergeHunk {
	if n := len(hunks); n > 0 {
		m := &hunks[n-1]
		if h.i1 <= m.i1+m.chg1 || h.i2 <= m.i2+m.chg2 {
			if h.mode != m.mode {
				m.mode = 0
			}
			m.chg0 = h.i0 + h.chg0 - m.i0
			m.chg1 = h.i1 + h.chg1 - m.i1
			m.chg2 = h.i2 + h.chg2 - m.i2
			return hunks
		}
	}
	return append(hunks, h)
}

// combine walks the two edit scripts together, as xdl_do_merge does: a change
// that ends before the other side's next change starts is taken from its
// side; changes that overlap or touch (end == start) are a conflict unless
// they are the same change.
func (t *threeWay) combine(s1, s2 []hunk) []mergeHunk {
	var hunks []mergeHunk
	a, b := 0, 0
	for a < len(s1) && b < len(s2) {
		x1, x2 := s1[a], s2[b]
		if x1.i1+x1.chg1 < x2.i1 {
			hunks = appendHunk(hunks, mergeHunk{mode: 1,
				i0: x1.i1, chg0: x1.chg1,
				i1: x1.i2, chg1: x1.chg2,
				i2: x2.i2 - x2.i1 + x1.i1, chg2: x1.chg1})
			a++
			continue
		}
		if x2.i1+x2.chg1 < x1.i1 {
			hunks = appendHunk(hunks, mergeHunk{mode: 2,
				i0: x2.i1, chg0: x2.chg1,
				i1: x1.i2 - x1.i1 + x2.i1, chg1: x2.chg1,
				i2: x2.i2, chg2: x2.chg2})
			b++
			continue
		}
		if x1.i1 != x2.i1 || x1.chg1 != x2.chg1 || x1.chg2 != x2.chg2 ||
			!slices.Equal(t.ids.ours[x1.i2:x1.i2+x1.chg2], t.ids.theirs[x2.i2:x2.i2+x2.chg2]) {
			off := x1.i1 - x2.i1
			ffo := off + x1.chg1 - x2.chg1
			i0, i1, i2 := x1.i1, x1.i2, x2.i2
			if off > 0 {
				i0 -= off
				i1 -= off
			} else {
				i2 += off
			}
			chg0 := x1.i1 + x1.chg1 - i0
			chg1 := x1.i2 + x1.chg2 - i1
			chg2 := x2.i2 + x2.chg2 - i2
			if ffo < 0 {
				chg0 -= ffo
				chg1 -= ffo
			} else {
				chg2 += ffo
			}
			hunks = appendHunk(hunks, mergeHunk{mode: 0, i0: i0, chg0: chg0, i1: i1, chg1: chg1, i2: i2, chg2: chg2})
		}
		end1, end2 := x1.i1+x1.chg1, x2.i1+x2.chg1
		if end1 >= end2 {
			b++
		}
		if end2 >= end1 {
			a++
		}
	}
	for ; a < len(s1); a++ {
		x1 := s1[a]
		hunks = appendHunk(hunks, mergeHunk{mode: 1,
			i0: x1.i1, chg0: x1.chg1,
			i1: x1.i2, chg1: x1.chg2,
			i2: x1.i1 + t.theirs.n() - t.base.n(), chg2: x1.chg1})
	}
	for ; b < len(s2); b++ {
		x2 := s2[b]
		hunks = appendHunk(hunks, mergeHunk{mode: 2,
			i0: x2.i1, chg0: x2.chg1,
			i1: x2.i1 + t.ours.n() - t.base.n(), chg1: x2.chg1,
			i2: x2.i2, chg2: x2.chg2})
	}
	return hunks
}

// trimConflicts is xdl_refine_zdiff3_conflicts: lines that ours and theirs
// share at the start and end of a conflict move outside it.
func (t *threeWay) trimConflicts(hunks []mergeHunk) {
	for k := range hunks {
		m := &hunks[k]
		if m.mode != 0 {
			continue
		}
		for m.chg1 > 0 && m.chg2 > 0 && t.ids.ours[m.i1] == t.ids.theirs[m.i2] {
			m.chg1--
			m.chg2--
			m.i1++
			m.i2++
		}
		for m.chg1 > 0 && m.chg2 > 0 && t.ids.ours[m.i1+m.chg1-1] == t.ids.theirs[m.i2+m.chg2-1] {
			m.chg1--
			m.chg2--
		}
	}
}

// refineConflicts is xdl_refine_conflicts: each conflict is narrowed to the
// lines where ours and theirs differ, by diffing the two sides; a conflict
// whose sides are equal becomes an identical change (mode 4).
func (t *threeWay) refineConflicts(hunks []mergeHunk) []mergeHunk {
	out := make([]mergeHunk, 0, len(hunks))
	for _, m := range hunks {
		if m.mode != 0 || m.chg1 == 0 || m.chg2 == 0 {
			out = append(out, m)
			continue
		}
		script := t.differ.diff(t.ids.ours[m.i1:m.i1+m.chg1], t.ids.theirs[m.i2:m.i2+m.chg2])
		if len(script) == 0 {
			m.mode = 4
			out = append(out, m)
			continue
		}
		for _, x := range script {
			out = append(out, mergeHunk{mode: 0,
				i0: m.i0, chg0: m.chg0, // the base of the whole change
				i1: m.i1 + x.i1, chg1: x.chg1,
				i2: m.i2 + x.i2, chg2: x.chg2})
		}
	}
	return out
}

// simplifyNonConflicts is xdl_simplify_non_conflicts at the zealous-alnum
// level: two conflicts separated by at most three lines, or by lines without
// any letter or digit, become one.
func (t *threeWay) simplifyNonConflicts(hunks []mergeHunk) []mergeHunk {
	if len(hunks) == 0 {
		return hunks
	}
	out := []mergeHunk{hunks[0]}
	for _, next := range hunks[1:] {
		m := &out[len(out)-1]
		begin, end := m.i1+m.chg1, next.i1
		if m.mode != 0 || next.mode != 0 ||
			(end-begin > 3 && containsAlnum(t.ours.span(begin, end))) {
			out = append(out, next)
			continue
		}
		m.chg1 = next.i1 + next.chg1 - m.i1
		m.chg2 = next.i2 + next.chg2 - m.i2
		m.chg0 = max(m.chg0, next.i0+next.chg0-m.i0)
	}
	return out
}

func containsAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}
