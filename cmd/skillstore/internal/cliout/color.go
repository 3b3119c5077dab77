package cliout

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	"github.com/skillstore/skillstore/store/treediff"
)

// ANSI SGR sequences for the few colours skillstore uses.
const (
	SGRReset  = "\x1b[0m"
	SGRBold   = "\x1b[1m"
	SGRRed    = "\x1b[31m"
	SGRGreen  = "\x1b[32m"
	SGRYellow = "\x1b[33m"
	SGRCyan   = "\x1b[36m"
)

// Painter colours words when its writer is a terminal and NO_COLOR is
// unset; otherwise it returns them unchanged. --json output never goes
// through it.
type Painter struct{ on bool }

// NewPainter returns the painter of w: on when w is a terminal and NO_COLOR
// is unset.
func NewPainter(w io.Writer) Painter { return Painter{on: ColorEnabled(w)} }

// On reports whether p colours.
func (p Painter) On() bool { return p.on }

// Paint wraps s in the colour sgr when p is on.
func (p Painter) Paint(sgr, s string) string {
	if !p.on || s == "" {
		return s
	}
	return sgr + s + SGRReset
}

// statusColors colours the words that say how a skill fared: green for
// done, yellow for what waits on a person, red for what failed.
var statusColors = map[string]string{
	"hot": SGRGreen, "cold": SGRYellow, "removed": SGRYellow, "captured": SGRGreen,
	"fast-forward": SGRGreen, "already-applied": SGRGreen, "new": SGRGreen, "publish": SGRGreen,
	"three-way": SGRYellow, "candidate": SGRYellow, "conflict": SGRRed, "conflicted": SGRRed,
	"locally-modified": SGRYellow, "foreign": SGRYellow, "modified": SGRYellow, "missing": SGRRed,
	"outdated": SGRYellow, "needs-merge": SGRYellow, "failed": SGRRed, "ready": SGRGreen,
	"resolved": SGRGreen, "stale": SGRYellow, "adopted": SGRGreen, "link-replaced": SGRYellow,
}

// HasColor reports whether word is a status word Status colours.
func HasColor(word string) bool { return statusColors[word] != "" }

// Status colours a status word by statusColors.
func (p Painter) Status(word string) string {
	if sgr, ok := statusColors[word]; ok {
		return p.Paint(sgr, word)
	}
	return word
}

// WriteDiff prints changes as git diff does, coloured as git
// colours it on a terminal: headers bold, hunk lines cyan, additions
// green, deletions red.
func WriteDiff(w io.Writer, changes []treediff.FileChange) error {
	p := NewPainter(w)
	if !p.on {
		return treediff.Write(w, changes)
	}
	var buf bytes.Buffer
	if err := treediff.Write(&buf, changes); err != nil {
		return err
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	bw := bufio.NewWriter(Raw(w)) // the colours are ours; each line is escaped
	inHeader := false
	for sc.Scan() {
		line := Escape(sc.Text())
		switch {
		case strings.HasPrefix(line, "diff --git "):
			inHeader = true
			line = p.Paint(SGRBold, line)
		case strings.HasPrefix(line, "@@"):
			inHeader = false
			line = p.Paint(SGRCyan, line)
		case inHeader:
			line = p.Paint(SGRBold, line)
		case strings.HasPrefix(line, "+"):
			line = p.Paint(SGRGreen, line)
		case strings.HasPrefix(line, "-"):
			line = p.Paint(SGRRed, line)
		}
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return bw.Flush()
}
