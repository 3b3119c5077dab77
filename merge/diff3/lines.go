package diff3

import "strings"

// lines is a text split into lines, each keeping its terminating "\n" (and
// any "\r" before it), as git compares lines; a last line without a
// final newline is kept as is. Line i is text[off[i]:off[i+1]], so a run of
// lines is a single substring of the text, written out in one copy.
// Offsets are int32: texts over MaxSize are not merged.
type lines struct {
	text string
	off  []int32 // n+1 offsets: the start of each line, then len(text)
}

// MaxSize is the largest file git merge-file merges as text (1023 MiB): it
// treats larger files as binary, and so does Merge.
const MaxSize = 1023 << 20

func splitText(text string) lines {
	off := make([]int32, 1, strings.Count(text, "\n")+2)
	for start := 0; start < len(text); {
		i := strings.IndexByte(text[start:], '\n')
		if i < 0 {
			start = len(text)
		} else {
			start += i + 1
		}
		off = append(off, int32(start))
	}
	return lines{text: text, off: off}
}

// n is the number of lines.
func (l lines) n() int { return len(l.off) - 1 }

// line is line i.
func (l lines) line(i int) string { return l.text[l.off[i]:l.off[i+1]] }

// span is lines [i, j) as one string.
func (l lines) span(i, j int) string { return l.text[l.off[i]:l.off[j]] }

// splitLines splits text into lines as lines does, one string per line.
func splitLines(text string) []string {
	l := splitText(text)
	out := make([]string, l.n())
	for i := range out {
		out[i] = l.line(i)
	}
	return out
}
