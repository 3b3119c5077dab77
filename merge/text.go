package merge

import "github.com/skillstore/skillstore/merge/diff3"

// The line merge is package diff3's; these names let callers of merge use it
// without importing both packages.
type (
	// Style is how a text conflict is written: Diff3, Plain or ZDiff3.
	Style = diff3.Style
	// Favor resolves conflicts instead of writing markers.
	Favor = diff3.Favor
	// Labels name the three versions in conflict markers.
	Labels = diff3.Labels
	// Section is one side of a conflict: a range of lines and their text.
	Section = diff3.Section
	// Conflict is one conflicting region of a text merge.
	Conflict = diff3.Conflict
	// BinaryError names the version that is binary.
	BinaryError = diff3.BinaryError
)

// Conflict styles and favors; see package diff3.
const (
	Diff3       = diff3.Diff3
	Plain       = diff3.Plain
	ZDiff3      = diff3.ZDiff3
	FavorNone   = diff3.FavorNone
	FavorOurs   = diff3.FavorOurs
	FavorTheirs = diff3.FavorTheirs
	FavorUnion  = diff3.FavorUnion
	// DefaultMarkerSize is the length of git's conflict markers.
	DefaultMarkerSize = diff3.DefaultMarkerSize
)

// ErrBinary is matched (errors.Is) by the error Text and SkillMD return for
// a version git merge-file would not merge as text (see diff3.ErrBinary).
var ErrBinary = diff3.ErrBinary

// Options tune a merge. The zero value merges like `git merge-file --diff3
// -L ours -L base -L theirs` and merges SKILL.md frontmatter key by key.
type Options struct {
	Style      Style
	Favor      Favor
	MarkerSize int // 0 means DefaultMarkerSize
	Labels     Labels
	// PlainText turns off the frontmatter-aware merge of SKILL.md files in
	// MergeTrees: they are merged line by line like any text file.
	PlainText bool
	// SkillAware applies the skill-aware rules (see Markdown) to the
	// conflicts of Markdown files: SkillMD's body (or whole file), and in
	// MergeTrees every *.md file. Off, every conflict is git's.
	SkillAware bool
	// Ahead, when set, holds the file merges of MergeTrees that a store
	// write computes before it takes its lock (see Ahead).
	Ahead *Ahead
}

func (o Options) text() diff3.Options {
	return diff3.Options{Style: o.Style, Favor: o.Favor, MarkerSize: o.MarkerSize, Labels: o.Labels}
}

// TextResult is the outcome of a text merge.
type TextResult struct {
	// Merged is the merged text; it holds conflict markers where the two
	// sides conflict.
	Merged []byte
	// Conflicts lists the conflicts in the order they appear in Merged.
	Conflicts []Conflict
	// Frontmatter reports that a SKILL.md frontmatter was merged key by key
	// (see SkillMD); false for a line merge of the whole file.
	Frontmatter bool
	// Resolutions lists the conflicts of git's line merge that the
	// skill-aware rules resolved (Options.SkillAware), in file order. A
	// merge with resolutions is one git would not have made: it is for
	// review, never applied on its own.
	Resolutions []Resolution
	// Coarse reports a line merge whose diffs ran out of their budget
	// (see diff3.Result.Coarse): a true merge, with larger conflicts than
	// git's. Neither the frontmatter merge nor the skill-aware rules
	// redo it: they would run out the same way.
	Coarse bool
}

// Clean reports whether the merge had no conflicts.
func (r *TextResult) Clean() bool { return len(r.Conflicts) == 0 }

// Text merges three versions of a text file line by line, with the semantics
// and output of git merge-file, byte for byte (see package diff3): a change
// made on one side only is taken, the same change made on both sides is
// taken once, and changes that overlap or touch are a conflict written
// between markers. Line endings, CRLF and a missing final newline are kept
// exactly.
func Text(base, ours, theirs []byte, opts Options) (*TextResult, error) {
	r, err := diff3.Merge(base, ours, theirs, opts.text())
	if err != nil {
		return nil, err
	}
	return &TextResult{Merged: r.Merged, Conflicts: r.Conflicts, Coarse: r.Coarse}, nil
}
