package merge

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the word merge: larger conflicts are left as they are.
const (
	maxWordTokens = 20000 // tokens of one side of a conflict
	maxWordEdits  = 500   // edit distance between the base and a side, in tokens
	maxSlide      = 200   // tokens an insertion slides to a line start
)

// tokenize cuts text into words (runs of letters, digits and '_'), runs of
// spaces and tabs, line ends ("\n" or "\r\n") and single other characters.
// Joining the tokens gives text back.
func tokenize(text string) []string {
	var out []string
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		j := i + size
		switch {
		case r == '\n':
		case r == '\r' && strings.HasPrefix(text[j:], "\n"):
			j++
		case isWordRune(r):
			j = i + runLen(text[i:], isWordRune)
		case r == ' ' || r == '\t':
			j = i + runLen(text[i:], func(r rune) bool { return r == ' ' || r == '\t' })
		}
		out = append(out, text[i:j])
		i = j
	}
	return out
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// runLen is the length in bytes of the prefix of s whose runes satisfy in.
func runLen(s string, in func(rune) bool) int {
	for i, r := range s {
		if !in(r) {
			return i
		}
	}
	return len(s)
}

func isLineEnd(tok string) bool { return tok == "\n" || tok == "\r\n" }

func isBlank(tok string) bool { return strings.Trim(tok, " \t") == "" }

func isWord(tok string) bool {
	r, _ := utf8.DecodeRuneInString(tok)
	return isWordRune(r)
}

// edit is one change of a side against the base, in tokens: base tokens
// [start, end) become repl.
type edit struct {
	start, end int
	repl       []string
	side       int // 0 ours, 1 theirs, bothSides
}

func (e edit) insertion() bool { return e.start == e.end }

// resolveWords merges the sides of a conflict word by word: nil unless every
// edit of one side is apart from every edit of the other (see separated).
// Where both sides insert whole lines at one line start, the insertions
// rule (resolveInsertions) places them, as it does for a conflict that is
// only that; fenced tells whether the conflict starts in a code fence.
func resolveWords(base, ours, theirs string, fenced bool) *resolution {
	b := tokenize(base)
	var all []edit
	for side, text := range []string{ours, theirs} {
		edits, ok := diffTokens(b, tokenize(text))
		if !ok {
			return nil
		}
		edits = coalesce(b, edits)
		for i, e := range edits {
			lo, hi := 0, len(b)
			if i > 0 {
				lo = edits[i-1].end
			}
			if i+1 < len(edits) {
				hi = edits[i+1].start
			}
			e.side = side
			all = append(all, slide(b, e, lo, hi))
		}
	}
	// By start; at one start an insertion goes before a replacement.
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].start != all[j].start {
			return all[i].start < all[j].start
		}
		return all[i].insertion() && !all[j].insertion()
	})
	all, ok := joinInsertions(b, all, fenced)
	if !ok {
		return nil
	}
	var last [2]*edit
	for i := range all {
		e := &all[i]
		for other := range 2 {
			if p := last[other]; other != e.side && p != nil && !separated(b, p, e) {
				return nil
			}
		}
		if e.side == bothSides {
			last[0], last[1] = e, e
		} else {
			last[e.side] = e
		}
	}
	var out strings.Builder
	pos := 0
	for _, e := range all {
		if e.start < pos {
			return nil // edits overlap: never reached, separated refuses it
		}
		out.WriteString(strings.Join(b[pos:e.start], ""))
		out.WriteString(strings.Join(e.repl, ""))
		pos = max(pos, e.end)
	}
	out.WriteString(strings.Join(b[pos:], ""))
	return &resolution{rule: RuleWords, text: out.String()}
}

// bothSides is the side of an edit made of both sides' insertions.
const bothSides = 2

// joinInsertions replaces each pair of insertions that both sides make at
// one point (adjacent in sorted edits) by one edit that holds both, when
// they can be placed: whole lines at a line start are placed by
// resolveInsertions (false when it refuses them). At the end of a file
// whose last line has no line end, both sides ending that line is one
// change, taken once: the lines either side adds after it are then placed
// as whole lines.
func joinInsertions(b []string, all []edit, fenced bool) ([]edit, bool) {
	var out []edit
	for i := 0; i < len(all); i++ {
		e := all[i]
		if i+1 < len(all) {
			f := all[i+1]
			if e.insertion() && f.insertion() && e.start == f.start && e.side != f.side {
				ours, theirs := e, f
				if ours.side != 0 {
					ours, theirs = f, e
				}
				k := 0
				for k < len(ours.repl) && k < len(theirs.repl) && ours.repl[k] == theirs.repl[k] {
					k++
				}
				// Both sides' first line end ends the file's last line only
				// when that line has none; after a line end it is a blank
				// line of each side's.
				unended := e.start == len(b) && len(b) > 0 && !isLineEnd(b[len(b)-1])
				switch {
				case k == 1 && unended && isLineEnd(ours.repl[0]) && (len(ours.repl) == 1 || len(theirs.repl) == 1) &&
					isLineEnd(ours.repl[len(ours.repl)-1]) && isLineEnd(theirs.repl[len(theirs.repl)-1]):
					// Both ended the last line, one added lines after it.
					longer := ours.repl
					if len(theirs.repl) > len(longer) {
						longer = theirs.repl
					}
					out = append(out, edit{start: e.start, end: e.start, repl: longer, side: bothSides})
					i++
					continue
				case k == 1 && unended && isLineEnd(ours.repl[0]) && isLineEnd(ours.repl[len(ours.repl)-1]) && isLineEnd(theirs.repl[len(theirs.repl)-1]):
					r := resolveInsertions(strings.Join(ours.repl[k:], ""), strings.Join(theirs.repl[k:], ""),
						inFence(splitLines(strings.Join(b[:e.start], "")+strings.Join(ours.repl[:k], "")), fenced))
					if r == nil {
						return nil, false
					}
					out = append(out, edit{start: e.start, end: e.start, repl: append(slices.Clone(ours.repl[:k]), tokenize(r.text)...), side: bothSides})
					i++
					continue
				case wholeLines(b, &e) && wholeLines(b, &f):
					r := resolveInsertions(strings.Join(ours.repl, ""), strings.Join(theirs.repl, ""),
						inFence(splitLines(strings.Join(b[:e.start], "")), fenced))
					if r == nil {
						return nil, false
					}
					out = append(out, edit{start: e.start, end: e.start, repl: tokenize(r.text), side: bothSides})
					i++
					continue
				}
			}
		}
		out = append(out, e)
	}
	return out, true
}

// separated reports whether edit e, of one side, starting at or after the
// start of edit p, of the other, is apart from it: an unchanged token that
// is not a space lies between them (a word, a punctuation mark or a line
// end), or one of them inserts whole lines at a line start the other only
// borders there.
func separated(b []string, p, e *edit) bool {
	if e.start < p.end || (e.start == p.start && e.insertion() && p.insertion()) {
		return false
	}
	for _, tok := range b[p.end:e.start] {
		if !isBlank(tok) {
			return true
		}
	}
	switch {
	case p.insertion() && p.start == e.start: // p's lines go before the line e edits
		return wholeLines(b, p)
	case e.insertion() && e.start == p.end: // e's lines follow the lines p ends
		// p must leave a line start before e: its replacement ends a line,
		// or it deletes whole lines.
		endsLine := len(p.repl) > 0 && isLineEnd(p.repl[len(p.repl)-1]) ||
			len(p.repl) == 0 && (p.start == 0 || isLineEnd(b[p.start-1]))
		return wholeLines(b, e) && endsLine || phraseAfter(b, p, e)
	}
	return false
}

// phraseAfter reports whether insertion e, right after the words p replaced
// (or deleted) and before a mark both sides left alone, adds a phrase of
// its own: it starts with a space or a mark, not inside a word, and the
// token after it is not a word either. So a clarification appended to a
// sentence, " (locally: ...)" before its final period, follows the
// sentence's new words when the other side reworded its end. p must keep
// a word before e, so e still follows text, not a line start, and must not
// be longer in words than what it replaced.
func phraseAfter(b []string, p, e *edit) bool {
	if p.insertion() || len(e.repl) == 0 || isWord(e.repl[0]) || isLineEnd(e.repl[0]) || e.start >= len(b) || isWord(b[e.start]) || isLineEnd(e.repl[len(e.repl)-1]) {
		return false
	}
	// A replacement longer in words than what it replaced may itself add
	// a phrase at that point, an alternative to e ("to production" and
	// "to staging"): refused.
	words := func(toks []string) int {
		return len(slices.DeleteFunc(slices.Clone(toks), func(t string) bool { return !isWord(t) }))
	}
	if words(p.repl) > words(b[p.start:p.end]) {
		return false
	}
	for i := len(p.repl) - 1; i >= 0; i-- {
		switch tok := p.repl[i]; {
		case isLineEnd(tok):
			return false
		case isWord(tok):
			return true
		}
	}
	return false
}

// wholeLines reports whether insertion e adds whole lines at a line start.
func wholeLines(b []string, e *edit) bool {
	atLineStart := e.start == 0 || isLineEnd(b[e.start-1])
	return atLineStart && len(e.repl) > 0 && isLineEnd(e.repl[len(e.repl)-1])
}

// slide moves an insertion along equal tokens, within base tokens [lo, hi)
// that its side leaves unchanged, to where it adds whole lines at a line
// start, when there is such a place: a diff may as well pair the line end
// before an inserted line as the one after it.
func slide(b []string, e edit, lo, hi int) edit {
	if !e.insertion() || wholeLines(b, &e) {
		return e
	}
	for _, step := range []int{1, -1} {
		f := e
		f.repl = slices.Clone(e.repl)
		for range min(len(e.repl), maxSlide) {
			if step > 0 {
				if f.start >= hi || f.repl[0] != b[f.start] {
					break
				}
				f.repl = append(f.repl[1:], f.repl[0])
			} else {
				if f.start <= lo || f.repl[len(f.repl)-1] != b[f.start-1] {
					break
				}
				f.repl = append([]string{f.repl[len(f.repl)-1]}, f.repl[:len(f.repl)-1]...)
			}
			f.start += step
			f.end = f.start
			if wholeLines(b, &f) {
				return f
			}
		}
	}
	return e
}

// coalesce joins edits of one side separated only by spaces and punctuation:
// an edit that rewrites a phrase is one edit, not several around the
// commas it kept.
func coalesce(b []string, edits []edit) []edit {
	var out []edit
	for _, e := range edits {
		if n := len(out); n > 0 && !slices.ContainsFunc(b[out[n-1].end:e.start], isWord) {
			p := &out[n-1]
			p.repl = append(append(p.repl, b[p.end:e.start]...), e.repl...)
			p.end = e.end
			continue
		}
		out = append(out, e)
	}
	return out
}

// diffTokens lists the edits that turn tokens a into b (a shortest edit
// script); false when the texts are over the word merge's limits.
func diffTokens(a, b []string) ([]edit, bool) {
	if len(a) > maxWordTokens || len(b) > maxWordTokens {
		return nil, false
	}
	ids := map[string]int{}
	intern := func(toks []string) []int {
		out := make([]int, len(toks))
		for i, t := range toks {
			id, ok := ids[t]
			if !ok {
				id = len(ids)
				ids[t] = id
			}
			out[i] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	pairs, ok := shortestEdit(x[pre:len(x)-suf], y[pre:len(y)-suf])
	if !ok {
		return nil, false
	}
	var edits []edit
	i, j := pre, pre
	for _, p := range append(pairs, [2]int{len(x) - suf - pre, len(y) - suf - pre}) {
		pi, pj := p[0]+pre, p[1]+pre
		if pi > i || pj > j {
			edits = append(edits, edit{start: i, end: pi, repl: slices.Clone(b[j:pj])})
		}
		i, j = pi+1, pj+1
	}
	return edits, true
}

// shortestEdit is Myers' O(ND) algorithm: the index pairs (i, j) with
// a[i] == b[j] that a shortest edit script keeps, in order; false when the
// edit distance is over maxWordEdits.
func shortestEdit(a, b []int) ([][2]int, bool) {
	n, m := len(a), len(b)
	off := n + m
	v := make([]int, 2*(n+m)+2)
	var trace [][]int // trace[d][k+d]: the furthest x on diagonal k after d edits
	for d := 0; d <= n+m; d++ {
		if d > maxWordEdits {
			return nil, false
		}
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
		}
		trace = append(trace, slices.Clone(v[off-d:off+d+1]))
		if k := n - m; k >= -d && k <= d && (k+d)%2 == 0 && v[off+k] >= n {
			return backtrack(trace, a, b), true
		}
	}
	return nil, false // not reached: d = n+m always ends
}

// backtrack walks the trace of shortestEdit from the end back to the start
// and collects the diagonal moves.
func backtrack(trace [][]int, a, b []int) [][2]int {
	get := func(d, k int) int { return trace[d][k+d] }
	var pairs [][2]int
	x, y := len(a), len(b)
	for d := len(trace) - 1; d > 0; d-- {
		k := x - y
		var prevK int
		if k == -d || (k != d && get(d-1, k-1) < get(d-1, k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := get(d-1, prevK)
		midX := prevX
		if prevK == k-1 {
			midX = prevX + 1
		}
		for x > midX {
			x, y = x-1, y-1
			pairs = append(pairs, [2]int{x, y})
		}
		x, y = prevX, prevX-prevK
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		pairs = append(pairs, [2]int{x, y})
	}
	slices.Reverse(pairs)
	return pairs
}
