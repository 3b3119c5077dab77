package merge

import (
	"strings"
	"unicode"
)

// resolution is the text a rule puts in place of a conflict.
type resolution struct {
	rule Rule
	text string
}

// resolveHunk tries the rules on one conflict of the diff3-style line merge
// (whole sides); nil when none applies. baseLines is the whole base, for the
// context of an insertion.
func resolveHunk(c *Conflict, baseLines []string) *resolution {
	before := baseLines[:min(c.Base.Start-1, len(baseLines))]
	fenced := inFence(before, false)
	if c.Base.Count == 0 {
		return resolveInsertions(c.Ours.Text, c.Theirs.Text, fenced)
	}
	if r := resolveWords(c.Base.Text, c.Ours.Text, c.Theirs.Text, fenced); r != nil {
		return r
	}
	return resolveAround(c.Base.Text, c.Ours.Text, c.Theirs.Text, fenced)
}

// resolveAround is RuleLines: when one side's lines are the base's with
// whole lines added before or after them (and nothing else changed), those
// lines go before or after the other side's lines. The word merge refuses
// such a conflict when the other side rewrote more than it compares.
func resolveAround(base, ours, theirs string, fenced bool) *resolution {
	if fenced || base == "" {
		return nil
	}
	if !strings.HasSuffix(base, "\n") {
		// The file's last line, without a line end: a side that adds lines
		// after it ends it first. The line end is the side's, and taken
		// with what it adds.
		for _, eol := range []string{"\r\n", "\n"} {
			for _, sides := range [][2]string{{ours, theirs}, {theirs, ours}} {
				side, other := sides[0], sides[1]
				if added, ok := strings.CutPrefix(side, base+eol); ok && added != "" && strings.HasSuffix(added, "\n") && !rewords(splitLines(added), splitLines(other)) {
					switch {
					case other == "":
						// The other side deleted the last line: the line
						// end this side gave it has no place.
						continue
					case !strings.HasSuffix(other, "\n"):
						// The other side rewrote the last line, still
						// without a line end: this side's change, ending
						// the last line and adding lines, applies to it.
						return &resolution{rule: RuleLines, text: other + eol + added}
					}
					return &resolution{rule: RuleLines, text: other + added}
				}
			}
		}
		return nil
	}
	// Refused, as the insertions are, when an added line rewords a line
	// of the other side: that is one edit made twice.
	around := func(side, other string) (string, bool) {
		if other != "" && !strings.HasSuffix(other, "\n") {
			// The other side took the line end off its last line: lines
			// after it would either join that line or undo that change.
			return "", false
		}
		switch {
		case len(side) > len(base) && strings.HasPrefix(side, base): // lines after
			if added := side[len(base):]; !rewords(splitLines(added), splitLines(other)) {
				return other + added, true
			}
		case len(side) > len(base) && strings.HasSuffix(side, base) && strings.HasSuffix(side[:len(side)-len(base)], "\n"): // lines before
			if added := side[:len(side)-len(base)]; !rewords(splitLines(added), splitLines(other)) {
				return added + other, true
			}
		}
		return "", false
	}
	if text, ok := around(ours, theirs); ok {
		return &resolution{rule: RuleLines, text: text}
	}
	if text, ok := around(theirs, ours); ok {
		return &resolution{rule: RuleLines, text: text}
	}
	return nil
}

// resolveInsertions places two insertions at one point: the text before the
// first heading of theirs, then of ours, then theirs' sections, then ours'.
// fenced tells whether the point is inside a fenced code block. Nil when
// one insertion rewords the other, or a piece that is not last lacks a
// final newline.
func resolveInsertions(oursText, theirsText string, fenced bool) *resolution {
	ours, theirs := splitLines(oursText), splitLines(theirsText)
	if len(ours) == 0 || len(theirs) == 0 || rewords(ours, theirs) {
		return nil
	}
	preO, secO := splitSections(ours, fenced)
	preT, secT := splitSections(theirs, fenced)
	rule := RuleInsertions
	if len(secO)+len(secT) > 0 {
		rule = RuleSections
	}
	var pieces []string
	for _, p := range [][]string{preT, preO, secT, secO} {
		if len(p) > 0 {
			pieces = append(pieces, strings.Join(p, ""))
		}
	}
	for _, p := range pieces[:len(pieces)-1] {
		if !strings.HasSuffix(p, "\n") {
			return nil // the next piece would continue its last line
		}
	}
	return &resolution{rule: rule, text: strings.Join(pieces, "")}
}

// splitSections cuts an insertion at its first ATX heading outside a code
// fence (with the blank lines before it): the lines before belong to the
// section the insertion point is in, the rest are whole sections. fenced
// tells whether the insertion point is inside a fenced code block, where
// nothing is a heading.
func splitSections(lines []string, fenced bool) (pre, sections []string) {
	if fenced {
		return lines, nil
	}
	open := false
	for i, l := range lines {
		if isFenceLine(l) {
			open = !open
			continue
		}
		if open || !isHeading(l) {
			continue
		}
		for i > 0 && strings.TrimSpace(lines[i-1]) == "" {
			i--
		}
		return lines[:i], lines[i:]
	}
	return lines, nil
}

// inFence reports whether a fenced code block is still open after lines.
func inFence(lines []string, open bool) bool {
	for _, l := range lines {
		if isFenceLine(l) {
			open = !open
		}
	}
	return open
}

func isFenceLine(l string) bool {
	t := strings.TrimLeft(l, " ")
	return len(l)-len(t) < 4 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"))
}

// isHeading reports an ATX heading: up to three spaces, one to six '#', then
// a space, a tab or the end of the line.
func isHeading(l string) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return false
	}
	n := len(t) - len(strings.TrimLeft(t, "#"))
	if n < 1 || n > 6 {
		return false
	}
	rest := t[n:]
	return rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}

// rewordLimit bounds the work of rewords (words of one insertion times
// words of the other); larger insertions are not resolved.
const rewordLimit = 1 << 22

// rewords reports whether a line of a rewords a line of b: the same words,
// or at least 60% of their words shared in order. Lines without a letter or
// digit (blank lines, fences, rules) are not compared.
func rewords(a, b []string) bool {
	words := func(lines []string) ([][]string, int) {
		out := make([][]string, len(lines))
		n := 0
		for i, l := range lines {
			out[i] = lowerWords(l)
			n += len(out[i])
		}
		return out, n
	}
	wa, na := words(a)
	wb, nb := words(b)
	if na*nb > rewordLimit || len(a)*len(b) > rewordLimit {
		return true
	}
	for _, wa := range wa {
		if len(wa) == 0 {
			continue
		}
		for _, w := range wb {
			if len(w) > 0 && 10*2*lcsLen(wa, w) >= 6*(len(wa)+len(w)) {
				return true
			}
		}
	}
	return false
}

// lowerWords lists the words (runs of letters and digits) of s, lowercased.
func lowerWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// lcsLen is the length of the longest common subsequence of a and b.
func lcsLen(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
