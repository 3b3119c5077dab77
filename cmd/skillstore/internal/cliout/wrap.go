package cliout

import (
	"strings"
	"unicode/utf8"
)

// ReportWidth is the longest line a report prints for people: a longer
// one wraps (Wrap), and long lists are summarised, with --verbose listing
// them whole.
const ReportWidth = 120

// Wrap quotes text (Quote: it stays one line of ours) and breaks it at
// spaces into lines of at most width runes (WrapLine), each after the
// first starting with indent. The result holds newlines of ours only, so
// it prints as it is (Quoted).
func Wrap(text string, width int, indent string) Quoted {
	return Quoted(WrapLine(Quote(text), width, indent))
}

// WrapLine breaks line at spaces into lines of at most width runes, each
// after the first starting with indent. A word longer than a line is left
// whole; a line that fits, or any line with width 0, is returned as it is.
func WrapLine(line string, width int, indent string) string {
	if width <= 0 || utf8.RuneCountInString(line) <= width {
		return line
	}
	lead := len(line) - len(strings.TrimLeft(line, " "))
	words := strings.Split(line[lead:], " ")
	var b strings.Builder
	b.WriteString(line[:lead])
	n := lead
	for i, w := range words {
		wn := utf8.RuneCountInString(w)
		switch {
		case i == 0:
		case n+1+wn > width:
			b.WriteString("\n" + indent)
			n = utf8.RuneCountInString(indent)
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += wn
	}
	return b.String()
}
