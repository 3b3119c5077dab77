package candidates

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/merge"
	storecandidates "github.com/skillstore/skillstore/store/candidates"
)

// wordContext is how many unchanged lines around a changed one a side of
// a conflict shows; the rest is "…".
const wordContext = 1

// writeWordConflicts prints each conflict block left in files word by word:
// for each side, its lines against the base's, the base's words it
// replaced between [- and -] and its own between {+ and +}, as git diff
// --word-diff writes them (red and green too on a terminal). A block
// without the base (the plain style) shows ours against upstream. Lines
// far from a change are left out. Nothing is printed when no block is left.
func writeWordConflicts(w io.Writer, files []storecandidates.MarkedFile) error {
	p := cliout.NewPainter(w)
	out := w
	esc := func(s string) string { return s } // w escapes
	if p.On() {
		// The colours are ours, so w's escaping is done here, text by text.
		out, esc = cliout.Raw(w), cliout.Escape
	}
	bw := bufio.NewWriter(out)
	first := true
	for _, f := range files {
		for _, m := range merge.ReadMarked(f.Data) {
			if first {
				bw.WriteString("\nconflicts left, word by word ([-base-]{+side+}):\n")
				first = false
			}
			bw.WriteString(esc(f.Path) + ":" + strconv.Itoa(m.Line) + "\n")
			side := func(name, label string, spans []merge.WordSpan) {
				if label != "" {
					name += " (" + label + ")"
				}
				bw.WriteString("  " + esc(name) + ":\n")
				writeSpans(bw, p, esc, spans)
			}
			if m.HasBase {
				side("ours", m.OursLabel, merge.WordDiff(m.Base, m.Ours))
				side("upstream", m.TheirsLabel, merge.WordDiff(m.Base, m.Theirs))
			} else {
				side("ours against upstream", m.OursLabel+" / "+m.TheirsLabel, merge.WordDiff(m.Theirs, m.Ours))
			}
		}
	}
	return bw.Flush()
}

// writeSpans writes a word diff as indented lines, with [-deleted-] and
// {+added+} runs, keeping wordContext unchanged lines around each changed
// one. A line end added or deleted alone shows as {+⏎+} or [-⏎-].
func writeSpans(bw *bufio.Writer, p cliout.Painter, esc func(string) string, spans []merge.WordSpan) {
	type line struct {
		text    strings.Builder
		changed bool
	}
	mark := func(op merge.WordOp, s string) string {
		if op == merge.WordDeleted {
			return p.Paint(cliout.SGRRed, "[-"+esc(s)+"-]")
		}
		return p.Paint(cliout.SGRGreen, "{+"+esc(s)+"+}")
	}
	lines := []*line{{}}
	for _, s := range spans {
		pieces := strings.Split(s.Text, "\n")
		for k, piece := range pieces {
			cur := lines[len(lines)-1]
			end := k < len(pieces)-1 // a line end follows the piece
			if end {
				piece = strings.TrimSuffix(piece, "\r")
			}
			if piece != "" {
				if s.Op == merge.WordSame {
					cur.text.WriteString(esc(piece))
				} else {
					cur.text.WriteString(mark(s.Op, piece))
					cur.changed = true
				}
			}
			if end {
				if s.Op != merge.WordSame && piece == "" {
					cur.text.WriteString(mark(s.Op, "⏎"))
					cur.changed = true
				}
				lines = append(lines, &line{})
			}
		}
	}
	if last := lines[len(lines)-1]; last.text.Len() == 0 && len(lines) > 1 {
		lines = lines[:len(lines)-1] // the text ended with a line end
	}
	keep := make([]bool, len(lines))
	for i, l := range lines {
		if l.changed {
			for j := max(0, i-wordContext); j <= min(len(lines)-1, i+wordContext); j++ {
				keep[j] = true
			}
		}
	}
	skipped := false
	for i, l := range lines {
		if !keep[i] {
			if !skipped {
				bw.WriteString("    …\n")
			}
			skipped = true
			continue
		}
		skipped = false
		bw.WriteString(strings.TrimRight("    "+l.text.String(), " ") + "\n")
	}
}
