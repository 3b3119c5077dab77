package merge

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/skillstore/skillstore/merge/diff3"
)

// Rule names the skill-aware rule that resolved a conflict git's line merge
// left (see [Markdown]).
type Rule string

const (
	// RuleSections: both sides inserted text at one point and at least one
	// of them inserted whole Markdown sections (from a heading on). The
	// text before the first heading of each insertion stays where it was
	// (theirs', then ours'), then theirs' sections, then ours' sections, each
	// whole: nothing is interleaved inside a section.
	RuleSections Rule = "sections"
	// RuleInsertions: both sides inserted lines at one point and deleted
	// nothing there; theirs' lines come first, then ours'.
	RuleInsertions Rule = "insertions"
	// RuleWords: both sides changed the same or adjacent lines, and their
	// changes, compared word by word, are apart: both are applied.
	RuleWords Rule = "words"
	// RuleLines: one side only added whole lines right before or right
	// after the lines the other side changed; they stay before or after
	// the other side's new lines. Refused inside a fenced code block.
	RuleLines Rule = "lines"
)

// Resolution is one conflict of git's line merge that the skill-aware rules
// resolved. Ours, Base and Theirs are the conflict as git reports it (in the
// diff3 style: whole sides); Line and Count place the resolved text in the
// merged file, so a reviewer can go straight to it.
type Resolution struct {
	Rule   Rule    `json:"rule"`
	Line   int     `json:"line"`  // 1-based line of the merged file where the resolved text starts
	Count  int     `json:"count"` // lines of resolved text
	Ours   Section `json:"ours"`
	Base   Section `json:"base"`
	Theirs Section `json:"theirs"`
}

// String is "LINE RULE", the form of a Merge-Resolved trailer after the path.
func (r Resolution) String() string { return strconv.Itoa(r.Line) + " " + string(r.Rule) }

// Markdown merges three versions of a Markdown file: the line merge of Text
// (git merge-file's result), then the skill-aware rules on each conflict it
// left. Where the line merge is clean, the result is Text's, byte for byte.
// A conflict is resolved only when a rule applies, and the result then keeps
// every line and word either side added and nothing either side deleted; it
// is listed in TextResult.Resolutions. Conflicts no rule resolves stay, with
// markers; when no conflict is resolved the result is Text's unchanged.
//
// The rules, tried in this order on each conflict:
//
//   - [RuleSections] and [RuleInsertions]: both sides inserted at the same
//     point and deleted nothing there. Refused when a line of one
//     insertion rewords a line of the other (at least 60% of their words,
//     in order, are shared): that is one edit made twice, not two additions.
//   - [RuleWords]: the sides changed the same or adjacent lines; compared
//     word by word, each change of one side is separated from every change
//     of the other by at least one unchanged word, punctuation mark or line
//     break. Whole lines inserted before a line the other side edited count
//     as apart, and whole lines both sides insert at one line start are
//     placed as the rules above place them (refused where they refuse). A
//     phrase one side inserts right after words the other side replaced,
//     before a mark both left (a clarification before a sentence's period),
//     follows the new words, unless the replacement is longer in words than
//     what it replaced (then the two may be alternatives).
//   - [RuleLines]: one side's text is the base's with whole lines added
//     before or after it (the other side rewrote it beyond what the word
//     comparison takes on): the lines go before or after the other's text.
func Markdown(base, ours, theirs []byte, opts Options) (*TextResult, error) {
	res, err := Text(base, ours, theirs, opts)
	if err != nil || res.Clean() {
		return res, err
	}
	return resolveConflicts(base, ours, theirs, res, opts, nil), nil
}

// resolveConflicts applies the skill-aware rules to the conflicts of git,
// the line merge of base, ours and theirs with opts, that eligible accepts
// (nil: all). It returns git itself when no conflict is resolved.
func resolveConflicts(base, ours, theirs []byte, git *TextResult, opts Options, eligible func(*Conflict) bool) *TextResult {
	if opts.Favor != FavorNone || git.Coarse {
		return git // a coarse merge's conflicts are not git's to resolve
	}
	segs, ok := conflictSegments(base, ours, theirs)
	if !ok {
		return git
	}
	baseLines := splitLines(string(base))
	resolved := make([]*resolution, len(segs))
	someResolved := false
	for i, s := range segs {
		if s.conflict != nil && (eligible == nil || eligible(s.conflict)) {
			resolved[i] = resolveHunk(s.conflict, baseLines)
			someResolved = someResolved || resolved[i] != nil
		}
	}
	if !someResolved {
		return git
	}
	out := &TextResult{Frontmatter: git.Frontmatter}
	var b strings.Builder
	line := 1
	for i, s := range segs {
		switch {
		case s.conflict == nil:
			b.WriteString(s.clean)
			line += strings.Count(s.clean, "\n")
		case resolved[i] != nil:
			r := resolved[i]
			n := strings.Count(r.text, "\n")
			if !strings.HasSuffix(r.text, "\n") && r.text != "" {
				n++
			}
			out.Resolutions = append(out.Resolutions, Resolution{
				Rule: r.rule, Line: line, Count: n,
				Ours: s.conflict.Ours, Base: s.conflict.Base, Theirs: s.conflict.Theirs,
			})
			b.WriteString(r.text)
			line += strings.Count(r.text, "\n")
		default:
			text, conflicts := renderConflict(s, opts)
			b.WriteString(text)
			line += strings.Count(text, "\n")
			out.Conflicts = append(out.Conflicts, conflicts...)
		}
	}
	out.Merged = []byte(b.String())
	return out
}

// segment is a stretch of the line merge's output: clean text, or a conflict.
type segment struct {
	clean    string
	conflict *Conflict
	crlf     bool // the conflict's markers end in CRLF
}

// conflictSegments runs the line merge in the diff3 style, whose conflicts
// hold whole sides, with labels no input contains, and cuts its output into
// clean text and conflicts; false if the output does not parse (then the
// caller keeps git's result).
func conflictSegments(base, ours, theirs []byte) ([]segment, bool) {
	labels := uniqueLabels(base, ours, theirs)
	r, err := diff3.Merge(base, ours, theirs, diff3.Options{Style: diff3.Diff3, Labels: labels})
	if err != nil {
		return nil, false
	}
	text := string(r.Merged)
	var segs []segment
	pos := 0
	for i := range r.Conflicts {
		c := &r.Conflicts[i]
		start := strings.Index(text[pos:], strings.Repeat("<", DefaultMarkerSize)+" "+labels.Ours)
		if start < 0 || (pos+start > 0 && text[pos+start-1] != '\n') {
			return nil, false
		}
		segs = append(segs, segment{clean: text[pos : pos+start]})
		p := pos + start
		var ok bool
		for _, part := range []struct {
			marker byte
			label  string
			body   string
		}{{'<', labels.Ours, c.Ours.Text}, {'|', labels.Base, c.Base.Text}, {'=', "", c.Theirs.Text}} {
			if p, ok = skipMarker(text, p, part.marker, part.label); !ok {
				return nil, false
			}
			if p, ok = skipBody(text, p, part.body); !ok {
				return nil, false
			}
		}
		if p, ok = skipMarker(text, p, '>', labels.Theirs); !ok {
			return nil, false
		}
		segs = append(segs, segment{conflict: c, crlf: strings.HasSuffix(text[:p], "\r\n")})
		pos = p
	}
	segs = append(segs, segment{clean: text[pos:]})
	return segs, true
}

// uniqueLabels returns conflict labels that occur in none of the inputs, so
// a marker line in the merged output is never a line of the files.
func uniqueLabels(texts ...[]byte) Labels {
	for n := 0; ; n++ {
		tag := "skillstore-" + strconv.Itoa(n)
		found := false
		for _, t := range texts {
			found = found || bytes.Contains(t, []byte(tag))
		}
		if !found {
			return Labels{Ours: "ours-" + tag, Base: "base-" + tag, Theirs: "theirs-" + tag}
		}
	}
}

// skipMarker checks that a marker line of c (and label) starts at p and
// returns the position after it.
func skipMarker(text string, p int, c byte, label string) (int, bool) {
	m := strings.Repeat(string(c), DefaultMarkerSize)
	if label != "" {
		m += " " + label
	}
	if !strings.HasPrefix(text[p:], m) {
		return 0, false
	}
	p += len(m)
	switch {
	case strings.HasPrefix(text[p:], "\r\n"):
		return p + 2, true
	case strings.HasPrefix(text[p:], "\n"):
		return p + 1, true
	}
	return 0, false
}

// skipBody checks that body starts at p (followed by the line end the merge
// adds to a last line without one) and returns the position after it.
func skipBody(text string, p int, body string) (int, bool) {
	if !strings.HasPrefix(text[p:], body) {
		return 0, false
	}
	p += len(body)
	if body != "" && !strings.HasSuffix(body, "\n") {
		switch {
		case strings.HasPrefix(text[p:], "\r\n"):
			p += 2
		case strings.HasPrefix(text[p:], "\n"):
			p++
		default:
			return 0, false
		}
	}
	return p, true
}

// renderConflict writes a conflict no rule resolved, in the style of opts.
// In the diff3 style that is git's block, byte for byte. In the others it
// is the line merge of the conflict's three sides alone, which is how git
// writes it, with the line numbers moved to the file's; should that merge
// of the sides alone come out clean, the conflict is written whole, in the
// diff3 layout, so that nothing is resolved that git did not resolve.
func renderConflict(s segment, opts Options) (string, []Conflict) {
	c := s.conflict
	if opts.Style != Diff3 {
		r, err := diff3.Merge([]byte(c.Base.Text), []byte(c.Ours.Text), []byte(c.Theirs.Text), opts.text())
		if err == nil && !r.Clean() {
			for i := range r.Conflicts {
				rc := &r.Conflicts[i]
				rc.Ours.Start += c.Ours.Start - 1
				rc.Base.Start += c.Base.Start - 1
				rc.Theirs.Start += c.Theirs.Start - 1
			}
			return string(r.Merged), r.Conflicts
		}
	}
	l := opts.Labels
	size := opts.MarkerSize
	if size <= 0 {
		size = DefaultMarkerSize
	}
	eol := "\n"
	if s.crlf {
		eol = "\r\n"
	}
	var b strings.Builder
	marker := func(ch, label string) {
		b.WriteString(strings.Repeat(ch, size))
		if label != "" {
			b.WriteString(" " + label)
		}
		b.WriteString(eol)
	}
	side := func(text string) {
		b.WriteString(text)
		if text != "" && !strings.HasSuffix(text, "\n") {
			b.WriteString(eol)
		}
	}
	marker("<", orDefault(l.Ours, "ours"))
	side(c.Ours.Text)
	marker("|", orDefault(l.Base, "base"))
	side(c.Base.Text)
	marker("=", "")
	side(c.Theirs.Text)
	marker(">", orDefault(l.Theirs, "theirs"))
	return b.String(), []Conflict{*c}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// splitLines cuts text into lines that keep their line ends.
func splitLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
