package diff3

import "strings"

// output writes the merged text: ours' lines, with each region replaced by
// what it takes, and collects the conflicts that opts.Favor leaves.
func (t *threeWay) output(regions []region, opts Options) *Result {
	res := &Result{}
	size := opts.MarkerSize
	if size <= 0 {
		size = DefaultMarkerSize
	}
	labels := opts.labels()
	b := make([]byte, 0, t.oursSize+256)
	next := 0 // the first line of ours not written yet
	for _, r := range regions {
		what := r.take
		if what == takeConflict {
			switch opts.Favor {
			case FavorOurs:
				what = takeOurs
			case FavorTheirs:
				what = takeTheirs
			case FavorUnion:
				what = takeBoth
			}
		}
		if what == takeSame {
			continue // ours already has the change
		}
		b = appendLines(b, t.ours, next, r.ours.start, false, false)
		next = r.ours.end
		switch what {
		case takeOurs:
			b = appendLines(b, t.ours, r.ours.start, r.ours.end, false, false)
		case takeTheirs:
			b = appendLines(b, t.theirs, r.theirs.start, r.theirs.end, false, false)
		case takeBoth:
			b = appendLines(b, t.ours, r.ours.start, r.ours.end, t.markersNeedCR(r), true)
			b = appendLines(b, t.theirs, r.theirs.start, r.theirs.end, false, false)
		default:
			cr := t.markersNeedCR(r)
			b = appendMarker(b, '<', size, labels.Ours, cr)
			b = appendLines(b, t.ours, r.ours.start, r.ours.end, cr, true)
			if opts.Style != Plain {
				b = appendMarker(b, '|', size, labels.Base, cr)
				b = appendLines(b, t.base, r.base.start, r.base.end, cr, true)
			}
			b = appendMarker(b, '=', size, "", cr)
			b = appendLines(b, t.theirs, r.theirs.start, r.theirs.end, cr, true)
			b = appendMarker(b, '>', size, labels.Theirs, cr)
			res.Conflicts = append(res.Conflicts, Conflict{
				Ours:   section(t.ours, r.ours),
				Base:   section(t.base, r.base),
				Theirs: section(t.theirs, r.theirs),
			})
		}
	}
	res.Merged = appendLines(b, t.ours, next, t.ours.n(), false, false)
	return res
}

// section copies the lines of a conflict's side: the text may be a view of
// the caller's input (see view), which the result must not keep.
func section(l lines, r lineRange) Section {
	return Section{Start: r.start + 1, Count: r.len(), Text: strings.Clone(l.span(r.start, r.end))}
}

// appendLines appends lines; with addNL, a last line without a newline gets
// one (CRLF when cr), so a marker never ends up on the same line.
func appendLines(b []byte, l lines, i, j int, cr, addNL bool) []byte {
	s := l.span(i, j)
	b = append(b, s...)
	if addNL && len(s) > 0 && s[len(s)-1] != '\n' {
		if cr {
			b = append(b, '\r')
		}
		b = append(b, '\n')
	}
	return b
}

func appendMarker(b []byte, c byte, size int, label string, cr bool) []byte {
	for range size {
		b = append(b, c)
	}
	if label != "" {
		b = append(b, ' ')
		b = append(b, label...)
	}
	if cr {
		b = append(b, '\r')
	}
	return append(b, '\n')
}

// markersNeedCR says whether a conflict's markers (and a newline added to
// a side's last line) end in CRLF. git merge-file's output shows the rule:
// they do when ours' line before the conflict (its first line if there is
// none before), theirs' line before it, and the base's first line all end
// in CRLF; a version that cannot tell (see eolCRLF) does not count against.
func (t *threeWay) markersNeedCR(r region) bool {
	cr := eolCRLF(t.ours, max(r.ours.start-1, 0))
	if cr != 0 {
		cr = eolCRLF(t.theirs, max(r.theirs.start-1, 0))
	}
	if cr != 0 {
		cr = eolCRLF(t.base, 0)
	}
	return cr > 0
}

// eolCRLF is 1 if line i ends in CRLF, 0 if in LF, and -1 if the file
// cannot tell (it is empty, or a single line without a newline). A last
// line without a newline is judged by the line before it.
func eolCRLF(l lines, i int) int {
	crlf := func(l string) int {
		if len(l) > 1 && l[len(l)-2] == '\r' {
			return 1
		}
		return 0
	}
	if i < l.n()-1 {
		return crlf(l.line(i))
	}
	if l.n() == 0 {
		return -1
	}
	if s := l.line(i); strings.HasSuffix(s, "\n") {
		return crlf(s)
	}
	if i == 0 {
		return -1
	}
	return crlf(l.line(i - 1))
}
