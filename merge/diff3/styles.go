package diff3

// This file shapes the conflicts of a merge for each conflict style, as
// observed from git merge-file's output in that style.

// narrowConflicts is the Plain style's shaping of conflicts: the base is not
// shown, so a conflict only needs the lines where ours and theirs differ.
// Each conflict's two sides are diffed; their common lines leave the
// conflict (written once, as merged lines) and each change between them is
// a conflict of its own, keeping the whole base of the original one. A
// conflict whose sides turn out equal is taken once. A conflict where one
// side has no lines at all is kept whole: there is nothing to narrow.
func (t *threeWay) narrowConflicts(in []region) []region {
	// One budget for all these diffs, half that of one diff of both files:
	// past it, a conflict stays whole.
	shared := t.differ.budgetFor(t.ours.n()+t.theirs.n()) / 2
	t.differ.shared = &shared
	defer func() { t.differ.shared = nil }()
	out := in[:0:0]
	for _, r := range in {
		if r.take != takeConflict || r.ours.len() == 0 || r.theirs.len() == 0 {
			out = append(out, r)
			continue
		}
		changes := t.differ.diff(t.ids.ours[r.ours.start:r.ours.end], t.ids.theirs[r.theirs.start:r.theirs.end])
		if len(changes) == 0 {
			r.take = takeSame
			out = append(out, r)
			continue
		}
		for _, h := range changes {
			out = append(out, region{
				take:   takeConflict,
				base:   r.base,
				ours:   lineRange{r.ours.start + h.i1, r.ours.start + h.i1 + h.chg1},
				theirs: lineRange{r.theirs.start + h.i2, r.theirs.start + h.i2 + h.chg2},
			})
		}
	}
	return out
}

// joinNearConflicts is the second half of the Plain style: two conflicts
// that follow each other are written as one when the lines of ours between
// them are at most three, or have no letter or digit at all (blank lines,
// braces): a reader resolves them together anyway. A change made the same
// way on both sides does not keep two conflicts apart (ours has it, so it
// is among the lines counted), but a change made by one side only does.
func (t *threeWay) joinNearConflicts(in []region) []region {
	out := in[:0]
	prev := -1 // the index in out of the last conflict, if only same changes follow it
	for _, r := range in {
		switch {
		case r.take == takeSame:
		case r.take != takeConflict:
			prev = -1
		case prev >= 0 && (r.ours.start-out[prev].ours.end <= 3 ||
			!hasAlnum(t.ours.span(out[prev].ours.end, r.ours.start))):
			p := &out[prev]
			p.base.end = max(p.base.end, r.base.end)
			p.ours.end = r.ours.end
			p.theirs.end = r.theirs.end
			out = out[:prev+1] // the same changes in between are inside it now
			continue
		default:
			prev = len(out)
		}
		out = append(out, r)
	}
	return out
}

// hasAlnum reports whether s holds an ASCII letter or digit.
func hasAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

// trimConflicts is the ZDiff3 style: the lines that ours and theirs share
// at the start and at the end of a conflict are written once, outside the
// markers; the base is still shown whole.
func (t *threeWay) trimConflicts(regions []region) {
	for k := range regions {
		r := &regions[k]
		if r.take != takeConflict {
			continue
		}
		for r.ours.start < r.ours.end && r.theirs.start < r.theirs.end &&
			t.ids.ours[r.ours.start] == t.ids.theirs[r.theirs.start] {
			r.ours.start++
			r.theirs.start++
		}
		for r.ours.start < r.ours.end && r.theirs.start < r.theirs.end &&
			t.ids.ours[r.ours.end-1] == t.ids.theirs[r.theirs.end-1] {
			r.ours.end--
			r.theirs.end--
		}
	}
}
