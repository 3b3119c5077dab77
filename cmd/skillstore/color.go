package main

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	"github.com/skillstore/skillstore/store/treediff"
)

// ANSI SGR sequences for the few colours skillstore uses.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrCyan   = "\x1b[36m"
)

// painter colours words when its writer is a terminal and NO_COLOR is
// unset; otherwise it returns them unchanged. --json output never goes
// through it.
type painter struct{ on bool }

func newPainter(w io.Writer) painter { return painter{on: colorEnabled(w)} }

func (p painter) paint(sgr, s string) string {
	if !p.on || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// statusColors colours the words that say how a skill fared: green for
// done, yellow for what waits on a person, red for what failed.
var statusColors = map[string]string{
	"hot": sgrGreen, "cold": sgrYellow, "removed": sgrYellow, "captured": sgrGreen,
	"fast-forward": sgrGreen, "already-applied": sgrGreen, "new": sgrGreen, "publish": sgrGreen,
	"three-way": sgrYellow, "candidate": sgrYellow, "conflict": sgrRed, "conflicted": sgrRed,
	"locally-modified": sgrYellow, "foreign": sgrYellow, "modified": sgrYellow, "missing": sgrRed,
	"outdated": sgrYellow, "needs-merge": sgrYellow, "failed": sgrRed, "ready": sgrGreen,
	"resolved": sgrGreen, "stale": sgrYellow, "adopted": sgrGreen, "link-replaced": sgrYellow,
}

// status colours a status word by statusColors.
func (p painter) status(word string) string {
	if sgr, ok := statusColors[word]; ok {
		return p.paint(sgr, word)
	}
	return word
}

// writeColoredDiff prints changes as git diff does, coloured as git
// colours it on a terminal: headers bold, hunk lines cyan, additions
// green, deletions red.
func writeColoredDiff(w io.Writer, changes []treediff.FileChange) error {
	p := newPainter(w)
	if !p.on {
		return treediff.Write(w, changes)
	}
	var buf bytes.Buffer
	if err := treediff.Write(&buf, changes); err != nil {
		return err
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	bw := bufio.NewWriter(rawWriter(w)) // the colours are ours; each line is escaped
	inHeader := false
	for sc.Scan() {
		line := escapeTerminal(sc.Text())
		switch {
		case strings.HasPrefix(line, "diff --git "):
			inHeader = true
			line = p.paint(sgrBold, line)
		case strings.HasPrefix(line, "@@"):
			inHeader = false
			line = p.paint(sgrCyan, line)
		case inHeader:
			line = p.paint(sgrBold, line)
		case strings.HasPrefix(line, "+"):
			line = p.paint(sgrGreen, line)
		case strings.HasPrefix(line, "-"):
			line = p.paint(sgrRed, line)
		}
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return bw.Flush()
}
