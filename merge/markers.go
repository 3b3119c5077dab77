package merge

import (
	"strings"
)

// Marked is one conflict block read back from a file that holds git's
// conflict markers: what a person reviewing the file sees. Base is set
// (HasBase) when the block is in the diff3 style, with the base's lines.
type Marked struct {
	Line         int // 1-based line of the "<<<<<<<" marker
	OursLabel    string
	TheirsLabel  string
	Ours, Theirs string
	Base         string
	HasBase      bool
}

// ReadMarked lists the conflict blocks of text: a line of seven '<' then
// a space or the line's end, optionally a line of seven '|', a line of
// seven '=' and a line of seven '>', each side's lines between them (as
// git merge-file writes them, in the diff3 or the plain style). A block
// left unfinished is not listed.
func ReadMarked(text []byte) []Marked {
	lines := splitLines(string(text))
	marker := func(l string, c byte) (string, bool) {
		l = strings.TrimRight(l, "\r\n")
		if len(l) < DefaultMarkerSize || strings.Count(l[:DefaultMarkerSize], string(c)) != DefaultMarkerSize {
			return "", false
		}
		rest := l[DefaultMarkerSize:]
		if rest == "" {
			return "", true
		}
		if rest[0] != ' ' || c == '=' {
			return "", false
		}
		return rest[1:], true
	}
	var out []Marked
	for i := 0; i < len(lines); i++ {
		label, ok := marker(lines[i], '<')
		if !ok {
			continue
		}
		m := Marked{Line: i + 1, OursLabel: label}
		part := &m.Ours
		done := false
		j := i + 1
		for ; j < len(lines) && !done; j++ {
			l := lines[j]
			if _, ok := marker(l, '|'); ok && part == &m.Ours {
				m.HasBase = true
				part = &m.Base
				continue
			}
			if _, ok := marker(l, '='); ok && (part == &m.Ours || part == &m.Base) {
				part = &m.Theirs
				continue
			}
			if label, ok := marker(l, '>'); ok && part == &m.Theirs {
				m.TheirsLabel = label
				done = true
				continue
			}
			if _, ok := marker(l, '<'); ok {
				break // a new block before this one ended
			}
			*part += l
		}
		if done {
			out = append(out, m)
			i = j - 1
		}
	}
	return out
}

// WordOp is what a WordSpan of a word diff is.
type WordOp int

const (
	WordSame    WordOp = iota // in both texts
	WordDeleted               // in the old text only
	WordAdded                 // in the new text only
)

// WordSpan is a run of a word diff: text that both have, that the old
// text had and the new lost, or that the new added.
type WordSpan struct {
	Op   WordOp
	Text string
}

// WordDiff compares two texts word by word (words, runs of spaces, line
// ends and single marks, as the skill-aware rules compare them) and
// returns the spans that make the new text from the old. Past the word
// merge's limits the texts are one deletion and one addition.
func WordDiff(old, new string) []WordSpan {
	a, b := tokenize(old), tokenize(new)
	edits, ok := diffTokens(a, b)
	if !ok {
		edits = []edit{{start: 0, end: len(a), repl: b}}
	}
	edits = coalesce(a, edits)
	var out []WordSpan
	add := func(op WordOp, text string) {
		if text == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].Op == op {
			out[n-1].Text += text
			return
		}
		out = append(out, WordSpan{op, text})
	}
	pos := 0
	for _, e := range edits {
		add(WordSame, strings.Join(a[pos:e.start], ""))
		add(WordDeleted, strings.Join(a[e.start:e.end], ""))
		add(WordAdded, strings.Join(e.repl, ""))
		pos = e.end
	}
	add(WordSame, strings.Join(a[pos:], ""))
	return out
}
