package cliout

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Escape makes s safe to print on a terminal: it shows, as Go
// escapes (\x1b, \u202e), every character a terminal acts on or that
// hides or reorders text (C0 controls but tab and newline, DEL, C1
// controls, bidirectional controls, zero-width characters, Unicode tag
// characters, the line and paragraph separators U+2028 and U+2029) and
// bytes that are not UTF-8. A skill's description holding
// ESC ] 52 (write the clipboard) or ESC [2J (clear the screen) is then
// printed, not obeyed. It is the one escaping every human-readable output
// goes through (Writer); --json output, cat and merge-file stay exact.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			return true // non-ASCII is checked rune by rune
		}
	}
	return false
}

// unsafeRune reports a character Escape shows escaped: those
// skillfs.UnsafeRune reports but tab and newline.
func unsafeRune(r rune) bool {
	return r != '\n' && r != '\t' && skillfs.UnsafeRune(r)
}

// Writer is the stdout and stderr of every command: what is written
// passes Escape. A multi-byte character split across two writes
// is held until it is complete. A Writer made by NewReportWriter (stderr)
// also wraps each line longer than its width (see WrapLine), so it holds
// a line until its newline; on stdout, which carries data too, only the
// lines printed with Reportf wrap, at the width set with SetWidth.
type Writer struct {
	raw     io.Writer
	pending []byte
	width   int // 0: lines are left whole
	// lineWise holds a line until its newline (a report Writer), so that
	// its width can change between lines.
	lineWise bool
}

// NewWriter returns a Writer escaping what it passes on to raw.
func NewWriter(raw io.Writer) *Writer { return &Writer{raw: raw} }

// NewReportWriter returns a Writer escaping what it passes on to raw and
// wrapping lines longer than width (0: none): stderr, where every line is
// a message for people (warnings, errors, hints), never data. Even at
// width 0 it passes on whole lines only.
func NewReportWriter(raw io.Writer, width int) *Writer {
	return &Writer{raw: raw, width: width, lineWise: true}
}

// SetWidth sets the width the report lines written to w wrap at (every
// line of a report Writer, those of Reportf on another); 0 leaves lines
// whole.
func (w *Writer) SetWidth(width int) { w.width = width }

// ReportWidthOf is the width w wraps lines at: 0 when it does not.
func ReportWidthOf(w io.Writer) int {
	if tw, ok := w.(*Writer); ok {
		return tw.width
	}
	return 0
}

func (w *Writer) Write(p []byte) (int, error) {
	data := append(w.pending, p...)
	w.pending = nil
	if w.lineWise {
		// Hold back the line not yet ended.
		end := bytes.LastIndexByte(data, '\n') + 1
		w.pending = append([]byte(nil), data[end:]...)
		data = data[:end]
	} else {
		// Hold back an incomplete character at the end.
		for cut := 1; cut <= 3 && cut <= len(data); cut++ {
			if utf8.RuneStart(data[len(data)-cut]) {
				if !utf8.FullRune(data[len(data)-cut:]) {
					w.pending = append([]byte(nil), data[len(data)-cut:]...)
					data = data[:len(data)-cut]
				}
				break
			}
		}
	}
	if _, err := io.WriteString(w.raw, w.lines(string(data))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// lines is text escaped and, with a width, each of its lines wrapped.
func (w *Writer) lines(text string) string {
	text = Escape(text)
	if !w.lineWise || w.width <= 0 || len(text) <= w.width {
		return text
	}
	ls := strings.Split(text, "\n")
	for i, l := range ls {
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		ls[i] = WrapLine(l, w.width, indent+"    ")
	}
	return strings.Join(ls, "\n")
}

// Flush writes what is held back (an incomplete character escaped as
// bytes that are not UTF-8).
func (w *Writer) Flush() {
	if len(w.pending) > 0 {
		io.WriteString(w.raw, w.lines(string(w.pending)))
		w.pending = nil
	}
}

// Raw is the stream under w's escaping, for output that must stay
// byte for byte what it is (JSON, cat, a merge result, audit events).
func Raw(w io.Writer) io.Writer {
	if tw, ok := w.(*Writer); ok {
		return tw.raw
	}
	return w
}
