package diff3

import "strings"

// output writes the merged text, as fill_merge_buffer, and collects the
// conflicts left after opts.Favor.
func (t *threeWay) output(hunks []mergeHunk, opts Options) *Result {
	res := &Result{}
	size := opts.MarkerSize
	if size <= 0 {
		size = DefaultMarkerSize
	}
	labels := opts.labels()
	b := make([]byte, 0, t.oursSize+256)
	i := 0
	for k := range hunks {
		m := &hunks[k]
		if opts.Favor != FavorNone && m.mode == 0 {
			m.mode = int(opts.Favor)
		}
		switch {
		case m.mode == 0:
			b = appendLines(b, t.ours, i, m.i1, false, false)
			cr := t.needsCR(m)
			b = appendMarker(b, '<', size, labels.Ours, cr)
			b = appendLines(b, t.ours, m.i1, m.i1+m.chg1, cr, true)
			if opts.Style != Plain {
				b = appendMarker(b, '|', size, labels.Base, cr)
				b = appendLines(b, t.base, m.i0, m.i0+m.chg0, cr, true)
			}
			b = appendMarker(b, '=', size, "", cr)
			b = appendLines(b, t.theirs, m.i2, m.i2+m.chg2, cr, true)
			b = appendMarker(b, '>', size, labels.Theirs, cr)
			res.Conflicts = append(res.Conflicts, Conflict{
				Ours:   section(t.ours, m.i1, m.chg1),
				Base:   section(t.base, m.i0, m.chg0),
				Theirs: section(t.theirs, m.i2, m.chg2),
			})
		case m.mode&3 != 0:
			b = appendLines(b, t.ours, i, m.i1, false, false)
			if m.mode&1 != 0 {
				b = appendLines(b, t.ours, m.i1, m.i1+m.chg1, t.needsCR(m), m.mode&2 != 0)
			}
			if m.mode&2 != 0 {
				b = appendLines(b, t.theirs, m.i2, m.i2+m.chg2, false, false)
			}
		default: // identical on both sides: ours already has it
			continue
		}
		i = m.i1 + m.chg1
	}
	b = appendLines(b, t.ours, i, t.ours.n(), false, false)
	res.Merged = b
	return res
}

// section copies the lines of a conflict's side: the text may be a view of
// the caller's input (see view), which the result must not keep.
func section(l lines, i, n int) Section {
	return Section{Start: i + 1, Count: n, Text: strings.Clone(l.span(i, i+n))}
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

// needsCR is git's is_cr_needed: markers end in CRLF when the lines before
// the conflict in ours and theirs (or their first lines) and the base's first
// line all end in CRLF.
func (t *threeWay) needsCR(m *mergeHunk) bool {
	cr := eolCRLF(t.ours, max(m.i1-1, 0))
	if cr != 0 {
		cr = eolCRLF(t.theirs, max(m.i2-1, 0))
	}
	if cr != 0 {
		cr = eolCRLF(t.base, 0)
	}
	return cr > 0
}

// eolCRLF is git's is_eol_crlf: 1 if line i ends in CRLF, 0 if in LF, -1 if
// it cannot tell (empty file, or a single line without a newline).
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
