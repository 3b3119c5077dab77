package merge

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/merge/diff3"
)

// File is one file of a Tree: the one definition of a skill's file that
// every package shares (package skillfs). A merge reads and writes only its
// Mode and Data; the Tree's key is its path.
type File = skillfs.File

// Mode is the kind of a file: Regular, Executable or Symlink.
type Mode = skillfs.Mode

// The modes a Tree's files can have.
const (
	Regular    = skillfs.Regular    // a plain file (git 100644)
	Executable = skillfs.Executable // an executable file (git 100755)
	Symlink    = skillfs.Symlink    // a symbolic link; Data is its target (git 120000)
)

// Tree is a skill folder: file contents by slash-separated path relative to
// the skill root (for example "SKILL.md", "scripts/run.sh"). Directories are
// implied by paths. A nil or empty Tree is a folder with no files.
type Tree map[string]File

// ConflictKind says why a path could not be merged.
type ConflictKind string

const (
	// ConflictContent: both sides changed a text file in overlapping places;
	// the merged file holds conflict markers (see PathConflict.Text).
	ConflictContent ConflictKind = "content"
	// ConflictAddAdd: both sides added the file with different contents;
	// the text was merged against an empty base and holds markers.
	ConflictAddAdd ConflictKind = "add/add"
	// ConflictModifyDelete: ours modified the file, theirs deleted it; the
	// merged tree keeps ours.
	ConflictModifyDelete ConflictKind = "modify/delete"
	// ConflictDeleteModify: ours deleted the file, theirs modified it; the
	// merged tree holds theirs so the change is not lost.
	ConflictDeleteModify ConflictKind = "delete/modify"
	// ConflictBinary: both sides changed a binary file differently; the
	// merged tree keeps ours and PathConflict.Theirs records theirs.
	ConflictBinary ConflictKind = "binary"
	// ConflictMode: the sides changed the file's mode in different ways;
	// the merged tree keeps ours' mode.
	ConflictMode ConflictKind = "mode"
	// ConflictSymlink: a symlink was changed differently on both sides, or
	// replaced by a file on one side and changed on the other. A symlink is
	// a single value (mode and target together): the merged tree keeps ours.
	ConflictSymlink ConflictKind = "symlink"
)

// ConflictKinds lists every [ConflictKind], so that a reader of conflicts
// recorded as text ("PATH (KIND)", where PATH may hold anything) can tell
// where each ends.
func ConflictKinds() []ConflictKind {
	return []ConflictKind{ConflictContent, ConflictAddAdd, ConflictModifyDelete, ConflictDeleteModify, ConflictBinary, ConflictMode, ConflictSymlink}
}

// PathConflict is a conflict at one path of a tree merge. Base, Ours and
// Theirs are the three versions (nil where the file is absent), so nothing
// the merged tree does not hold is lost.
type PathConflict struct {
	Path   string       `json:"path"`
	Kind   ConflictKind `json:"kind"`
	Text   []Conflict   `json:"text,omitempty"` // the text conflicts in the merged file
	Base   *File        `json:"-"`
	Ours   *File        `json:"-"`
	Theirs *File        `json:"-"`
}

// TreeResult is the outcome of MergeTrees.
type TreeResult struct {
	// Tree is the merged tree. When there are conflicts it holds, at each
	// conflicted path, the text with markers or the version named by the
	// conflict's kind.
	Tree Tree
	// Conflicts lists the conflicted paths in path order.
	Conflicts []PathConflict
	// Resolved lists, in path order, the conflicts of git's line merge that
	// the skill-aware rules resolved (Options.SkillAware). A tree with
	// resolutions is a merge git would not have made: for review only.
	Resolved []PathResolution
}

// PathResolution is a Resolution in one file of a tree.
type PathResolution struct {
	Path string `json:"path"`
	Resolution
}

// String is "PATH:LINE RULE", the value of a Merge-Resolved trailer.
func (r PathResolution) String() string { return r.Path + ":" + r.Resolution.String() }

// Clean reports whether the tree merged without conflicts.
func (r *TreeResult) Clean() bool { return len(r.Conflicts) == 0 }

// IsBinary reports whether data is treated as binary in a tree merge: it
// holds a NUL byte, is not valid UTF-8, or is over 1023 MiB (git's limit
// for a text merge). Binary files are never merged as text.
func IsBinary(data []byte) bool {
	return len(data) > diff3.MaxSize || bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

// MergeTrees merges three versions of a skill folder path by path, over the
// union of their paths. For each path, the same four-case rule applies to the
// contents and, separately, to the mode: what one side changed is taken,
// what both changed the same way is kept, and what both changed differently
// is merged as text when it is text (SKILL.md frontmatter key by key unless
// opts.PlainText; with opts.SkillAware, SKILL.md and other *.md files also
// get the rules of Markdown) or reported as a conflict. Deleting a file one side did not
// touch deletes it; deleting a file the other side changed is a conflict.
// Renames are not detected: a rename is a delete plus an add.
//
// Every change from both sides ends up in the merged tree or in a conflict.
// The inputs are not modified; the merged tree shares the Data of files it
// takes unchanged. The error reports an invalid tree: a path
// that is not clean, relative and slash-separated, or an unknown mode.
func MergeTrees(base, ours, theirs Tree, opts Options) (*TreeResult, error) {
	paths := map[string]bool{}
	for i, t := range []Tree{base, ours, theirs} {
		for p, f := range t {
			if err := checkFile(p, f); err != nil {
				return nil, fmt.Errorf("merge trees: %s tree: %w", [...]string{"base", "ours", "theirs"}[i], err)
			}
			paths[p] = true
		}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)

	res := &TreeResult{Tree: Tree{}}
	for _, p := range sorted {
		b, o, t := lookup(base, p), lookup(ours, p), lookup(theirs, p)
		merged, conflicts, resolved := mergePath(p, b, o, t, opts)
		if merged != nil {
			res.Tree[p] = *merged
		}
		res.Conflicts = append(res.Conflicts, conflicts...)
		for _, r := range resolved {
			res.Resolved = append(res.Resolved, PathResolution{Path: p, Resolution: r})
		}
	}
	return res, nil
}

// ErrInvalidTree is matched by the error MergeTrees returns for a bad tree.
var ErrInvalidTree = errors.New("invalid tree")

func checkFile(p string, f File) error {
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return fmt.Errorf("%w: path %q is not a clean relative slash-separated path", ErrInvalidTree, p)
	}
	if !f.Mode.IsFile() {
		return fmt.Errorf("%w: %s: unknown mode %d", ErrInvalidTree, p, f.Mode)
	}
	return nil
}

func lookup(t Tree, p string) *File {
	if f, ok := t[p]; ok {
		return &f
	}
	return nil
}

func sameFile(a, b *File) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Mode == b.Mode && bytes.Equal(a.Data, b.Data)
}

// mergePath merges one path; the merged file is nil when the path is absent
// from the merged tree.
func mergePath(p string, b, o, t *File, opts Options) (*File, []PathConflict, []Resolution) {
	switch {
	case sameFile(o, t):
		return o, nil, nil
	case sameFile(b, o):
		return t, nil, nil
	case sameFile(b, t):
		return o, nil, nil
	}
	conflict := func(kind ConflictKind) PathConflict {
		return PathConflict{Path: p, Kind: kind, Base: b, Ours: o, Theirs: t}
	}
	switch {
	case o == nil: // deleted by ours, changed by theirs: keep the change
		return t, []PathConflict{conflict(ConflictDeleteModify)}, nil
	case t == nil:
		return o, []PathConflict{conflict(ConflictModifyDelete)}, nil
	case o.Mode == Symlink || t.Mode == Symlink || b != nil && b.Mode == Symlink:
		return o, []PathConflict{conflict(ConflictSymlink)}, nil
	}

	var conflicts []PathConflict
	var bm *Mode
	if b != nil {
		bm = &b.Mode
	}
	mode, ok := mergeValue(bm, &o.Mode, &t.Mode)
	if !ok {
		mode = o.Mode
		conflicts = append(conflicts, conflict(ConflictMode))
	}

	var bd []byte
	if b != nil {
		bd = b.Data
	}
	switch {
	case bytes.Equal(o.Data, t.Data):
		return &File{Mode: mode, Data: o.Data}, conflicts, nil
	case b != nil && bytes.Equal(bd, o.Data):
		return &File{Mode: mode, Data: t.Data}, conflicts, nil
	case b != nil && bytes.Equal(bd, t.Data):
		return &File{Mode: mode, Data: o.Data}, conflicts, nil
	}
	// Both sides changed the contents differently.
	if IsBinary(o.Data) || IsBinary(t.Data) || IsBinary(bd) {
		return &File{Mode: mode, Data: o.Data}, append(conflicts, conflict(ConflictBinary)), nil
	}
	merge, name := mergeFunc(Text), "text"
	switch {
	case !opts.PlainText && path.Base(p) == skillmd.FileName:
		merge, name = SkillMD, "skillmd"
	case opts.SkillAware && isMarkdown(p):
		merge, name = Markdown, "markdown"
	}
	r, err := opts.Ahead.merge(name, merge, bd, o.Data, t.Data, opts)
	if err != nil { // not reached: binary data was ruled out above
		return &File{Mode: mode, Data: o.Data}, append(conflicts, conflict(ConflictBinary)), nil
	}
	if !r.Clean() {
		kind := ConflictContent
		if b == nil {
			kind = ConflictAddAdd
		}
		c := conflict(kind)
		c.Text = r.Conflicts
		conflicts = append(conflicts, c)
	}
	return &File{Mode: mode, Data: r.Merged}, conflicts, r.Resolutions
}

// isMarkdown reports a Markdown file by its name: *.md or *.markdown.
func isMarkdown(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".md" || ext == ".markdown"
}

// mergeValue is the four-case rule for a single value; nil is absent.
func mergeValue[T comparable](b, o, t *T) (T, bool) {
	eq := func(x, y *T) bool {
		if x == nil || y == nil {
			return x == nil && y == nil
		}
		return *x == *y
	}
	switch {
	case eq(o, t), eq(b, t):
		return *o, true
	case eq(b, o):
		return *t, true
	}
	return *o, false
}

// TreeOf indexes files by path as a Tree.
func TreeOf(files []File) Tree {
	t := make(Tree, len(files))
	for _, f := range files {
		t[f.Path] = f
	}
	return t
}

// Files lists the tree's files sorted by path, each with its Path, Size and
// blob ID set, as the store records them.
func (t Tree) Files() []File {
	files := make([]File, 0, len(t))
	for p, f := range t {
		if f.Data == nil {
			f.Data = []byte{}
		}
		f.Path, f.Size, f.ID = p, int64(len(f.Data)), skillfs.BlobID(f.Data)
		files = append(files, f)
	}
	skillfs.Sort(files)
	return files
}
