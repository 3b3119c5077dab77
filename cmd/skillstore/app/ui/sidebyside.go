package ui

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// What the page draws of a text: lines of segments, each segment plain,
// inserted or deleted, and each line with a class (added, removed,
// changed, a conflict hunk's part). The template escapes every segment;
// the classes are this file's constants.

// seg is a run of a line's text; Op is "", "ins" or "del".
type seg struct {
	Text, Op string
}

// line is one line of a column: its number in its file (0: none, a
// filler), its segments and its class.
type line struct {
	No    int
	Segs  []seg
	Class string
}

// row is one row of a two-sided diff.
type row struct {
	Hunk        string // a hunk header row ("@@ -4,7 +4,7 @@") when set
	Left, Right line
}

// wordTokens splits a line into words, runs of spaces and single other
// characters: the units a word-level highlight marks.
var wordTokens = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\p{L}\p{N}_]+|\s+|.`) })

// wordDiff marks, in a pair of lines (old, new), the words each side does
// not share with the other: old's in "del", new's in "ins".
func wordDiff(old, new string) (left, right []seg) {
	a, b := wordTokens().FindAllString(old, -1), wordTokens().FindAllString(new, -1)
	index := map[string]rune{}
	var words []string
	encode := func(toks []string) []rune {
		out := make([]rune, len(toks))
		for i, t := range toks {
			r, ok := index[t]
			if !ok {
				r = rune(len(words) + 1)
				index[t] = r
				words = append(words, t)
			}
			out[i] = r
		}
		return out
	}
	ra, rb := encode(a), encode(b)
	dmp := diffmatchpatch.New()
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMainRunes(ra, rb, false))
	decode := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			b.WriteString(words[r-1])
		}
		return b.String()
	}
	for _, d := range diffs {
		text := decode(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			left, right = appendSeg(left, text, ""), appendSeg(right, text, "")
		case diffmatchpatch.DiffDelete:
			left = appendSeg(left, text, "del")
		case diffmatchpatch.DiffInsert:
			right = appendSeg(right, text, "ins")
		}
	}
	return left, right
}

func appendSeg(segs []seg, text, op string) []seg {
	if n := len(segs); n > 0 && segs[n-1].Op == op {
		segs[n-1].Text += text
		return segs
	}
	return append(segs, seg{text, op})
}

func plain(text string) []seg { return []seg{{Text: text}} }

// pairRows makes the rows of a run of removed lines beside a run of
// added ones: paired lines changed (with their words marked), the rest
// removed or added beside a filler.
func pairRows(dels, adds []line) []row {
	var out []row
	for i := 0; i < max(len(dels), len(adds)); i++ {
		var r row
		switch {
		case i < len(dels) && i < len(adds):
			r.Left, r.Right = dels[i], adds[i]
			r.Left.Segs, r.Right.Segs = wordDiff(text(dels[i]), text(adds[i]))
			r.Left.Class, r.Right.Class = "chg", "chg"
		case i < len(dels):
			r.Left, r.Right = dels[i], line{Class: "fill"}
		default:
			r.Left, r.Right = line{Class: "fill"}, adds[i]
		}
		out = append(out, r)
	}
	return out
}

func text(l line) string {
	var b strings.Builder
	for _, s := range l.Segs {
		b.WriteString(s.Text)
	}
	return b.String()
}

var hunkHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@`) })

// patchRows lays a unified diff's hunks (the "patch" of diff --json) out
// side by side: the old file on the left, the new on the right.
func patchRows(patch string) []row {
	var out []row
	var dels, adds []line
	oldNo, newNo := 0, 0
	flush := func() {
		out = append(out, pairRows(dels, adds)...)
		dels, adds = nil, nil
	}
	for _, l := range strings.Split(strings.TrimSuffix(patch, "\n"), "\n") {
		if l == "" {
			continue
		}
		switch l[0] {
		case '@':
			flush()
			if m := hunkHeader().FindStringSubmatch(l); m != nil {
				oldNo, _ = strconv.Atoi(m[1])
				newNo, _ = strconv.Atoi(m[2])
			}
			out = append(out, row{Hunk: l})
		case '-':
			dels = append(dels, line{No: oldNo, Segs: plain(l[1:]), Class: "del"})
			oldNo++
		case '+':
			adds = append(adds, line{No: newNo, Segs: plain(l[1:]), Class: "add"})
			newNo++
		case ' ':
			flush()
			out = append(out, row{Left: line{No: oldNo, Segs: plain(l[1:])}, Right: line{No: newNo, Segs: plain(l[1:])}})
			oldNo++
			newNo++
		default: // "\ No newline at end of file"
		}
	}
	flush()
	return out
}

// againstBase draws a whole file as it is in one side of a merge, its
// lines marked where they differ from the base: added lines, and changed
// ones with the words that changed. A file the base does not have is
// all added.
func againstBase(base, side string) []line {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(base, side)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)
	var out []line
	var removed []string
	no := 1
	for _, d := range diffs {
		ls := splitLines(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			removed = append(removed, ls...)
		case diffmatchpatch.DiffInsert:
			for i, l := range ls {
				ln := line{No: no, Segs: plain(l), Class: "add"}
				if i < len(removed) {
					_, ln.Segs = wordDiff(removed[i], l)
					ln.Class = "chg"
				}
				out = append(out, ln)
				no++
			}
			removed = nil
		case diffmatchpatch.DiffEqual:
			if len(removed) > 0 {
				out = append(out, line{Segs: plain("(" + strconv.Itoa(len(removed)) + " removed)"), Class: "gone"})
				removed = nil
			}
			for _, l := range ls {
				out = append(out, line{No: no, Segs: plain(l)})
				no++
			}
		}
	}
	if len(removed) > 0 {
		out = append(out, line{Segs: plain("(" + strconv.Itoa(len(removed)) + " removed)"), Class: "gone"})
	}
	return out
}

// splitLines splits text into lines without their newlines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// conflictLines draws the merged file with its conflict hunks marked:
// the markers themselves, the published side, the base and the upstream
// side, each a class of its own (git's diff3 markers, as the merge
// writes them).
func conflictLines(merged string) []line {
	var out []line
	part := ""
	for i, l := range splitLines(merged) {
		class := part
		switch {
		case strings.HasPrefix(l, "<<<<<<< "), l == "<<<<<<<":
			part, class = "c-ours", "c-mark"
		case strings.HasPrefix(l, "||||||| "), l == "|||||||":
			if part != "" {
				part, class = "c-base", "c-mark"
			}
		case l == "=======":
			if part != "" {
				part, class = "c-theirs", "c-mark"
			}
		case strings.HasPrefix(l, ">>>>>>> "), l == ">>>>>>>":
			if part != "" {
				part, class = "", "c-mark"
			}
		}
		out = append(out, line{No: i + 1, Segs: plain(l), Class: class})
	}
	return out
}
