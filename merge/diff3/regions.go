package diff3

// This file is the three-way merge proper, as diff3 is described by Khanna,
// Kunal and Pierce ("A Formal Investigation of Diff3", FSTTCS 2007): the
// base is diffed against each side, the lines that no change touches on
// either side are stable, and the stretches between them are taken from the
// side that changed them, or are conflicts when both did.

// take says what the merged file holds for one region of the merge.
type take uint8

const (
	takeConflict take = iota // both sides changed the region differently
	takeOurs                 // only ours changed it
	takeTheirs               // only theirs changed it
	takeBoth                 // ours' lines then theirs' (a union favor)
	takeSame                 // both made the same change: ours has it
)

// lineRange is lines [start, end) of one version.
type lineRange struct{ start, end int }

func (r lineRange) len() int { return r.end - r.start }

// region is a stretch of the merge where at least one side changed the
// base, with its lines in each version.
type region struct {
	take               take
	base, ours, theirs lineRange
}

// regions merges the edit scripts from the base to ours and to theirs.
// Changes of the two sides whose base lines overlap or touch (one ends
// where the other starts, or both insert at the same place) join one
// region, and a region grows until no change of either side overlaps or
// touches it. A region changed by one side takes that side; one changed by
// both is a conflict, unless the two sides' lines for it are equal.
func (t *threeWay) regions(toOurs, toTheirs []hunk) []region {
	var out []region
	i, j := 0, 0
	shiftOurs, shiftTheirs := 0, 0 // lines added minus lines removed by the hunks already merged
	for i < len(toOurs) || j < len(toTheirs) {
		var r region
		switch {
		case j == len(toTheirs) || i < len(toOurs) && toOurs[i].i1 <= toTheirs[j].i1:
			r.base = lineRange{toOurs[i].i1, toOurs[i].i1 + toOurs[i].chg1}
		default:
			r.base = lineRange{toTheirs[j].i1, toTheirs[j].i1 + toTheirs[j].chg1}
		}
		r.ours = lineRange{r.base.start + shiftOurs, 0}
		r.theirs = lineRange{r.base.start + shiftTheirs, 0}
		var byOurs, byTheirs bool
		for grew := true; grew; {
			grew = false
			for i < len(toOurs) && toOurs[i].i1 <= r.base.end {
				h := toOurs[i]
				r.base.end = max(r.base.end, h.i1+h.chg1)
				shiftOurs += h.chg2 - h.chg1
				byOurs, grew = true, true
				i++
			}
			for j < len(toTheirs) && toTheirs[j].i1 <= r.base.end {
				h := toTheirs[j]
				r.base.end = max(r.base.end, h.i1+h.chg1)
				shiftTheirs += h.chg2 - h.chg1
				byTheirs, grew = true, true
				j++
			}
		}
		r.ours.end = r.base.end + shiftOurs
		r.theirs.end = r.base.end + shiftTheirs
		switch {
		case !byTheirs:
			r.take = takeOurs
		case !byOurs:
			r.take = takeTheirs
		case t.sameLines(r.ours, r.theirs):
			r.take = takeSame
		default:
			r.take = takeConflict
		}
		out = append(out, r)
	}
	return out
}

// sameLines reports whether lines o of ours and th of theirs are equal.
func (t *threeWay) sameLines(o, th lineRange) bool {
	if o.len() != th.len() {
		return false
	}
	for k := range o.len() {
		if t.ids.ours[o.start+k] != t.ids.theirs[th.start+k] {
			return false
		}
	}
	return true
}
