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
// spaces into lines of at most width runes, each after the first starting
// with indent. A word longer than a line is left whole. The result holds
// newlines of ours only, so it prints as it is (Quoted).
func Wrap(text string, width int, indent string) Quoted {
	words := strings.Split(Quote(text), " ")
	var b strings.Builder
	line := 0
	for i, w := range words {
		n := utf8.RuneCountInString(w)
		switch {
		case i == 0:
		case line+1+n > width:
			b.WriteString("\n" + indent)
			line = utf8.RuneCountInString(indent)
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += n
	}
	return Quoted(b.String())
}
