package app

import (
	"fmt"
	"io"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
)

// A note is one warning about one thing: where names it (a skill, a
// version, a plugin), at the place in it ("SKILL.md:3", may be empty),
// text says what. Reports collapse notes of one kind
// into one line with a count (groupNotes), so a store of hundreds of
// skills with the same upstream habit prints a line, not hundreds; the
// commands' --verbose lists them one by one.
type note struct {
	where, at, text string
	// name, when set, names the thing in a group's list instead of where
	// (a single note prints where, at and text as they were).
	name string
}

// noteGroup is the notes of one kind: their text with what differs
// between them elided ("…"), and whom they concern, in order, each once.
type noteGroup struct {
	text  string
	at    string // the first note's
	where []string
	names []string // the notes' names, when they have them
	count int
}

// groupNotes groups notes by kind (kindOf), in the order each kind first
// appears. The same text about the same thing twice counts once.
func groupNotes(notes []note) []noteGroup {
	var groups []noteGroup
	index := map[string]int{}
	seen := map[note]bool{}
	words := map[string][][]string{}
	for _, n := range notes {
		if seen[n] {
			continue
		}
		seen[n] = true
		k := kindOf(n.text)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, noteGroup{at: n.at})
		}
		g := &groups[i]
		g.count++
		if len(g.where) == 0 || g.where[len(g.where)-1] != n.where {
			g.where = append(g.where, n.where)
		}
		if n.name != "" && (len(g.names) == 0 || g.names[len(g.names)-1] != n.name) {
			g.names = append(g.names, n.name)
		}
		words[k] = append(words[k], strings.Split(n.text, " "))
	}
	for k, i := range index {
		groups[i].text = common(words[k])
	}
	return groups
}

// kindOf is a note's text with its particulars masked: words holding a
// digit or a quote (sizes, line numbers, names). Two notes of one kind
// differ only there.
func kindOf(text string) string {
	ws := strings.Split(text, " ")
	for i, w := range ws {
		if strings.ContainsAny(w, "0123456789\"'`") && !strings.HasSuffix(w, "'s") {
			ws[i] = "#"
		}
	}
	return strings.Join(ws, " ")
}

// common joins texts of one kind word by word, a word that differs
// between them shown as "…".
func common(texts [][]string) string {
	out := append([]string(nil), texts[0]...)
	for _, ws := range texts[1:] {
		for i := range out {
			if i < len(ws) && ws[i] != out[i] {
				out[i] = "…"
			}
		}
	}
	return strings.Join(out, " ")
}

// writeNoteGroups prints each group on a line of its own (wrapped at
// cliout.ReportWidth): a note alone as "prefix: WHERE: AT: TEXT" (without
// WHERE, as "prefix: FILE:LINE: warning: ...", unwrapped: the form editors
// and compilers use), a group as "prefix: N THINGS: TEXT (NAME, ... and K
// more)". It returns whether it collapsed any.
func writeNoteGroups(w io.Writer, prefix, things string, groups []noteGroup) bool {
	collapsed := false
	for _, g := range groups {
		var line string
		if g.count == 1 && g.where[0] == "" {
			// FILE:LINE: warning: ..., the form editors jump from: one line.
			cliout.Println(w, joinParts(prefix, g.at, g.text))
			continue
		}
		if g.count == 1 {
			line = joinParts(prefix, g.where[0], g.at, g.text)
		} else {
			collapsed = true
			names := g.where
			if len(g.names) > 0 {
				names = g.names
			}
			line = fmt.Sprintf("%s: %d %s: %s (%s)", prefix, g.count, things, g.text, nameSummary(names, 3))
		}
		cliout.Println(w, cliout.Wrap(line, cliout.ReportWidth, "    "))
	}
	return collapsed
}

// nameSummary lists names as "a, b, c and 4 more", at most max of them.
func nameSummary(names []string, max int) string {
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
