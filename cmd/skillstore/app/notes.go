package app

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
)

// A note is one warning about one thing: where names it (a skill, a
// version, a plugin), at the place in it ("SKILL.md:3", may be empty),
// text says what. Reports collapse notes of one kind
// into one line with a count (groupNotes), so a store of hundreds of
// skills with the same upstream habit prints a line, not hundreds; the
// commands' --verbose lists them one by one.
type Note struct {
	Where, At, Text string
	// Name, when set, names the thing in a group's list instead of Where
	// (a single note prints Where, At and Text as they were).
	Name string
}

// NoteGroup is the notes of one kind: their text with what differs
// between them elided ("…"), and whom they concern, in order, each once.
type NoteGroup struct {
	Text  string
	at    string // the first note's
	Where []string
	names []string // the notes' names, when they have them
	Count int
}

// GroupNotes groups notes by kind (kindOf), in the order each kind first
// appears. The same text about the same thing twice counts once.
func GroupNotes(notes []Note) []NoteGroup {
	var groups []NoteGroup
	index := map[string]int{}
	seen := map[Note]bool{}
	words := map[string][][]string{}
	for _, n := range notes {
		if seen[n] {
			continue
		}
		seen[n] = true
		k := kindOf(n.Text)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, NoteGroup{at: n.At})
		}
		g := &groups[i]
		g.Count++
		if len(g.Where) == 0 || g.Where[len(g.Where)-1] != n.Where {
			g.Where = append(g.Where, n.Where)
		}
		if n.Name != "" && (len(g.names) == 0 || g.names[len(g.names)-1] != n.Name) {
			g.names = append(g.names, n.Name)
		}
		words[k] = append(words[k], noteWords(n.Text))
	}
	for k, i := range index {
		groups[i].Text = common(words[k])
	}
	return groups
}

// kindOf is a note's text with its particulars masked: words holding a
// digit or a quote (sizes, line numbers, names). Two notes of one kind
// differ only there.
func kindOf(text string) string {
	ws := noteWords(text)
	for i, w := range ws {
		if strings.ContainsAny(w, "0123456789\"'`") && !strings.HasSuffix(w, "'s") {
			ws[i] = "#"
		}
	}
	return strings.Join(ws, " ")
}

// noteWords splits a note's text at spaces, a quoted name or command
// ("Agent Development", 'name: agent-development') one word however many
// spaces it holds: it is masked, compared and elided whole, so a group's
// text never shows a quote it does not close.
func noteWords(text string) []string {
	ws := strings.Split(text, " ")
	out := make([]string, 0, len(ws))
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if q := w[:min(len(w), 1)]; (q == `"` || q == "'") && !closesQuote(w[1:], q) {
			for j := i + 1; j < len(ws); j++ {
				if closesQuote(ws[j], q) {
					w, i = strings.Join(ws[i:j+1], " "), j
					break
				}
			}
		}
		out = append(out, w)
	}
	return out
}

// closesQuote reports whether word ends a span quoted with q (before any
// punctuation that follows it).
func closesQuote(word, q string) bool {
	return strings.HasSuffix(strings.TrimRight(word, ".,;:)"), q)
}

// common joins texts of one kind word by word, a word that differs
// between them shown by what all of them share around "…" ("'name: …'").
func common(texts [][]string) string {
	out := append([]string(nil), texts[0]...)
	for i := range out {
		differ := false
		for _, ws := range texts[1:] {
			differ = differ || i >= len(ws) || ws[i] != out[i]
		}
		if differ {
			var alike []string
			for _, ws := range texts {
				if i < len(ws) {
					alike = append(alike, ws[i])
				}
			}
			out[i] = elide(alike)
		}
	}
	return strings.Join(out, " ")
}

// elide is what words share at their start and end around "…", each part
// cut back to a boundary (a quote, a space, punctuation), so no half a
// name is shown: `"agent-development"` and `"hook-writing"` give `"…"`.
func elide(words []string) string {
	prefix, suffix := words[0], words[0]
	for _, w := range words[1:] {
		for !strings.HasPrefix(w, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
		for !strings.HasSuffix(w, suffix) {
			suffix = suffix[1:]
		}
	}
	for prefix != "" && isNameByte(prefix[len(prefix)-1]) {
		prefix = prefix[:len(prefix)-1]
	}
	for suffix != "" && isNameByte(suffix[0]) {
		suffix = suffix[1:]
	}
	if shortest := len(slices.MinFunc(words, func(a, b string) int { return len(a) - len(b) })); len(prefix)+len(suffix) > shortest {
		suffix = "" // the two overlap in the shortest word
	}
	return prefix + "…" + suffix
}

// isNameByte reports a byte that can be inside a name: elide does not cut
// a word there.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// writeNoteGroups prints each group on a line of its own (wrapped at the
// report width, --width): a note alone as "prefix: WHERE: AT: TEXT"
// (without WHERE, as "prefix: FILE:LINE: warning: ...", the form editors
// and compilers use, which wrapping leaves at the start of the first
// line), a group as "prefix: N THINGS: TEXT (NAME, ... and K more)". It
// returns whether it collapsed any.
func writeNoteGroups(w io.Writer, prefix, things string, groups []NoteGroup) bool {
	collapsed := false
	for _, g := range groups {
		var line string
		if g.Count == 1 && g.Where[0] == "" {
			// FILE:LINE: warning: ..., the form editors jump from.
			cliout.Reportf(w, "    ", "%s", joinParts(prefix, g.at, g.Text))
			continue
		}
		if g.Count == 1 {
			line = joinParts(prefix, g.Where[0], g.at, g.Text)
		} else {
			collapsed = true
			names := g.Where
			if len(g.names) > 0 {
				names = g.names
			}
			line = fmt.Sprintf("%s: %d %s: %s (%s)", prefix, g.Count, things, g.Text, NameSummary(names, 3))
		}
		cliout.Println(w, cliout.Wrap(line, cliout.ReportWidthOf(w), "    "))
	}
	return collapsed
}

// NameSummary lists names as "a, b, c and 4 more", at most max of them.
func NameSummary(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max], ", ") + fmt.Sprintf(" and %d more", len(names)-max)
}

// joinParts joins the parts of a line that are not empty with ": ".
func joinParts(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ": ")
}
