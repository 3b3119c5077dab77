// Package diff3 merges three versions of a text file line by line as git
// merge-file does: the same merged bytes, the same conflicts and the same
// conflict count, in git's three conflict styles. Changes made on one
// side are taken, the same change made on both sides is taken once, and
// changes that overlap or touch conflict. Conflicts are also reported
// structurally, as line ranges and texts of each version.
//
// The line diffs are Myers' O(ND) algorithm with its linear-space middle
// snake (myers.go), the merge of the two diffs is diff3's (regions.go), and
// where several alignments cost the same, the choice follows rules observed
// from git merge-file's output (diff.go, slide.go): two shortest diffs of the
// same files can pair different lines, and a merge built on another pairing
// than git's is clean where git's conflicts, or the other way round. Only in
// files with thousands of edits, where a diff stops looking for a shortest
// one, can the pairing still differ from git's.
//
// The package is pure (bytes in, bytes out) and links nothing beyond the
// standard library; package merge builds the skill-aware merges (SKILL.md
// frontmatter key by key, whole skill trees) on it.
package diff3

import (
	"bytes"
	"errors"
	"unsafe"
)

// Style is how a text conflict is written into the merged file.
type Style int

const (
	// Diff3 writes ours, the base and theirs between the markers
	// (git's merge.conflictStyle=diff3). It is the package default.
	Diff3 Style = iota
	// Plain writes only ours and theirs, and shrinks each conflict to the
	// lines where the two sides really differ (git's default "merge" style).
	Plain
	// ZDiff3 is Diff3 with the lines that ours and theirs share at the start
	// and the end of a conflict moved outside the markers (git's zdiff3).
	ZDiff3
)

// Favor resolves conflicts instead of writing markers, like git merge-file's
// --ours, --theirs and --union.
type Favor int

const (
	FavorNone   Favor = iota // write conflict markers
	FavorOurs                // take ours' side of every conflict
	FavorTheirs              // take theirs' side of every conflict
	FavorUnion               // take ours' lines then theirs' lines
)

// DefaultMarkerSize is the length of git's conflict markers.
const DefaultMarkerSize = 7

// Labels name the three versions in conflict markers. An empty label takes
// its default: "ours", "base" and "theirs".
type Labels struct {
	Ours, Base, Theirs string
}

// Options tune a merge. The zero value merges like `git merge-file --diff3
// -L ours -L base -L theirs`.
type Options struct {
	Style      Style
	Favor      Favor
	MarkerSize int // 0 means DefaultMarkerSize
	Labels     Labels
}

func (o Options) labels() Labels {
	l := o.Labels
	if l.Ours == "" {
		l.Ours = "ours"
	}
	if l.Base == "" {
		l.Base = "base"
	}
	if l.Theirs == "" {
		l.Theirs = "theirs"
	}
	return l
}

// Section is one side of a conflict: a range of lines of that version of the
// file and their text.
type Section struct {
	// Start is the 1-based number of the section's first line. An empty
	// section starts where its lines would be: before line Start.
	Start int    `json:"start"`
	Count int    `json:"count"`
	Text  string `json:"text"`
}

// Conflict is one conflicting region of a text merge, described structurally
// so a tool can show it without parsing markers. Ours and Theirs hold the
// conflicting lines as written between the markers. Base holds the base lines
// the two sides changed; in the Plain style, where a conflict can be
// narrowed to part of a change, Base covers the whole change.
type Conflict struct {
	Ours   Section `json:"ours"`
	Base   Section `json:"base"`
	Theirs Section `json:"theirs"`
}

// Result is the outcome of a merge.
type Result struct {
	// Merged is the merged text; it holds conflict markers where the two
	// sides conflict.
	Merged []byte
	// Conflicts lists the conflicts in the order they appear in Merged.
	Conflicts []Conflict
	// Coarse is set when a line diff of the merge ran out of its budget
	// (files of a few distinct lines in another order, see diffBudget):
	// the part of the files it had not aligned yet was taken as changed
	// whole. The merge is still a true one (it keeps every change of
	// each side, or conflicts), with larger conflicts than git merge-file
	// may write.
	Coarse bool
}

// Clean reports whether the merge had no conflicts.
func (r *Result) Clean() bool { return len(r.Conflicts) == 0 }

// ErrBinary is matched (errors.Is) by the error Merge returns for
// input holding a NUL byte in its first 8000 bytes, or over 1023 MiB: the
// tests git merge-file uses. Such files are not merged as text.
var ErrBinary = errors.New("binary file cannot be merged as text")

// BinaryError names the version ("base", "ours" or "theirs") that is binary.
type BinaryError struct {
	Version string
}

func (e *BinaryError) Error() string { return e.Version + ": " + ErrBinary.Error() }

// Is makes errors.Is(err, ErrBinary) true.
func (e *BinaryError) Is(target error) bool { return target == ErrBinary }

// Merge merges three versions of a text file line by line, with the
// semantics and output of git merge-file: a change made on one side only is
// taken, the same change made on both sides is taken once, and changes that
// overlap or touch are a conflict written between markers. Line endings,
// CRLF and a missing final newline are kept exactly.
func Merge(base, ours, theirs []byte, opts Options) (*Result, error) {
	for _, in := range []struct {
		name string
		data []byte
	}{{"base", base}, {"ours", ours}, {"theirs", theirs}} {
		if looksBinary(in.data) {
			return nil, &BinaryError{Version: in.name}
		}
	}
	return mergeStrings(view(base), view(ours), view(theirs), opts), nil
}

// Quick is the merge a line diff with no budget gives (see Result.Coarse):
// exact where each side's changes are one stretch between the lines all
// three share at the start and the end, or lines the other version lacks;
// otherwise that stretch is one change, and a conflict where both sides
// changed it. It is a true merge either way, however coarse, at the cost
// of reading the inputs.
func Quick(base, ours, theirs []byte, opts Options) (*Result, error) {
	for _, in := range []struct {
		name string
		data []byte
	}{{"base", base}, {"ours", ours}, {"theirs", theirs}} {
		if looksBinary(in.data) {
			return nil, &BinaryError{Version: in.name}
		}
	}
	return mergeBudgeted(view(base), view(ours), view(theirs), opts, func(int) int { return 0 }), nil
}

// view returns data as a string without copying it. Merge only reads its
// inputs while it runs, and nothing in its result refers to them (the merged
// text is appended into a new buffer and conflict sections are copied), so
// copying would only cost memory, which in a short merge costs more than the
// merge itself: fresh memory is paid for in page faults.
func view(data []byte) string { return unsafe.String(unsafe.SliceData(data), len(data)) }

// looksBinary is git merge-file's test for a binary file: larger than
// MaxSize, or a NUL byte in the first 8000 bytes.
func looksBinary(data []byte) bool {
	return len(data) > MaxSize || bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// threeWay holds the three versions split into lines, and the lines' IDs.
type threeWay struct {
	base, ours, theirs lines
	ids                struct{ base, ours, theirs []lineID }
	oursSize           int // bytes in ours: about the size of the result
	differ             differ
}

func mergeStrings(base, ours, theirs string, opts Options) *Result {
	return mergeBudgeted(base, ours, theirs, opts, diffBudget)
}

// mergeBudgeted is mergeStrings with the budget of each diff given (tests
// give small ones).
func mergeBudgeted(base, ours, theirs string, opts Options, budget func(lines int) int) *Result {
	t := &threeWay{base: splitText(base), ours: splitText(ours), theirs: splitText(theirs), oursSize: len(ours)}
	t.differ.budget = budget
	in := newInterner(t.base.n() + 64)
	t.ids.base = in.intern(t.base)
	t.ids.ours = in.internLike(t.ours, t.base, t.ids.base)
	t.ids.theirs = in.internLike(t.theirs, t.base, t.ids.base)
	t.differ.nIDs = in.count()
	toOurs := t.differ.diff(t.ids.base, t.ids.ours)
	toTheirs := t.differ.diff(t.ids.base, t.ids.theirs)
	if len(toOurs) == 0 {
		return &Result{Merged: []byte(theirs), Coarse: t.differ.capped}
	}
	if len(toTheirs) == 0 {
		return &Result{Merged: []byte(ours), Coarse: t.differ.capped}
	}
	regions := t.regions(toOurs, toTheirs)
	switch opts.Style {
	case Plain:
		regions = t.joinNearConflicts(t.narrowConflicts(regions))
	case ZDiff3:
		t.trimConflicts(regions)
	} // Diff3 shows the base with each conflict, so conflicts stay as found
	res := t.output(regions, opts)
	res.Coarse = t.differ.capped
	return res
}
