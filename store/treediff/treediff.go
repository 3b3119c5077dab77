// Package treediff says how two versions of a skill folder differ: which
// files were added, removed, renamed or modified (modes included), and the
// unified diff of each text file, printed the way git diff prints it. It
// compares file lists (package skillfs) and knows nothing of the store.
package treediff

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// ChangeKind is how a file changed between two versions.
type ChangeKind string

// Change kinds of a FileChange.
const (
	ChangeAdded    ChangeKind = "added"
	ChangeRemoved  ChangeKind = "removed"
	ChangeModified ChangeKind = "modified"
	ChangeRenamed  ChangeKind = "renamed"
)

// FileChange is how one file differs between two trees.
type FileChange struct {
	Kind    ChangeKind `json:"kind"`
	OldPath string     `json:"old_path,omitempty"`
	NewPath string     `json:"new_path,omitempty"`
	OldMode string     `json:"old_mode,omitempty"`
	NewMode string     `json:"new_mode,omitempty"`
	Binary  bool       `json:"binary,omitempty"`
	// Patch holds the unified diff hunks (no file headers).
	Patch string `json:"patch,omitempty"`
}

// ModeChanged reports an executable bit flip.
func (c FileChange) ModeChanged() bool {
	return c.OldMode != "" && c.NewMode != "" && c.OldMode != c.NewMode
}

// Files compares two trees whose files have Data. A removed and an added
// file with identical content are reported as one rename.
func Files(old, new []skillfs.File) []FileChange {
	om, nm := skillfs.Index(old), skillfs.Index(new)
	var removed, added []skillfs.File
	var out []FileChange
	for _, f := range old {
		if _, ok := nm[f.Path]; !ok {
			removed = append(removed, f)
		}
	}
	for _, f := range new {
		o, ok := om[f.Path]
		if !ok {
			added = append(added, f)
			continue
		}
		if hashOf(o) == hashOf(f) && o.Mode == f.Mode {
			continue
		}
		c := FileChange{Kind: ChangeModified, OldPath: o.Path, NewPath: f.Path, OldMode: o.ModeString(), NewMode: f.ModeString()}
		fillPatch(&c, o.Data, f.Data)
		out = append(out, c)
	}
	byHash := map[skillfs.ID][]int{}
	for i, f := range removed {
		byHash[hashOf(f)] = append(byHash[hashOf(f)], i)
	}
	renamedFrom := map[int]bool{}
	for _, f := range added {
		if idx := byHash[hashOf(f)]; len(idx) > 0 {
			o := removed[idx[0]]
			byHash[hashOf(f)] = idx[1:]
			renamedFrom[idx[0]] = true
			out = append(out, FileChange{Kind: ChangeRenamed, OldPath: o.Path, NewPath: f.Path, OldMode: o.ModeString(), NewMode: f.ModeString()})
			continue
		}
		c := FileChange{Kind: ChangeAdded, NewPath: f.Path, NewMode: f.ModeString()}
		fillPatch(&c, nil, f.Data)
		out = append(out, c)
	}
	for i, o := range removed {
		if !renamedFrom[i] {
			c := FileChange{Kind: ChangeRemoved, OldPath: o.Path, OldMode: o.ModeString()}
			fillPatch(&c, o.Data, nil)
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].path() < out[j].path() })
	return out
}

func (c FileChange) path() string {
	if c.NewPath != "" {
		return c.NewPath
	}
	return c.OldPath
}

func hashOf(f skillfs.File) skillfs.ID {
	if f.ID.IsZero() && f.Data != nil {
		return skillfs.BlobID(f.Data)
	}
	return f.ID
}

func fillPatch(c *FileChange, old, new []byte) {
	if bytes.IndexByte(old, 0) >= 0 || bytes.IndexByte(new, 0) >= 0 {
		c.Binary = true
		return
	}
	c.Patch = Unified(string(old), string(new), 3)
}

type lineOp struct {
	kind byte // ' ', '-', '+'
	text string
}

// Unified returns the hunks of a unified diff between two texts, made
// with go-diff's line mode, with context lines around each change.
func Unified(old, new string, context int) string {
	if old == new {
		return ""
	}
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(old, new)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var ops []lineOp
	for _, d := range diffs {
		kind := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			kind = '-'
		case diffmatchpatch.DiffInsert:
			kind = '+'
		}
		for _, l := range splitLines(d.Text) {
			ops = append(ops, lineOp{kind, l})
		}
	}
	var b strings.Builder
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			j := end
			for j < len(ops) && ops[j].kind == ' ' {
				j++
			}
			if j == len(ops) || j-end > 2*context {
				end = min(end+context, len(ops))
				break
			}
			end = j
		}
		writeHunk(&b, ops, start, end)
		i = end
	}
	return b.String()
}

func writeHunk(b *strings.Builder, ops []lineOp, start, end int) {
	oldStart, newStart := 1, 1
	for _, op := range ops[:start] {
		if op.kind != '+' {
			oldStart++
		}
		if op.kind != '-' {
			newStart++
		}
	}
	oldN, newN := 0, 0
	for _, op := range ops[start:end] {
		if op.kind != '+' {
			oldN++
		}
		if op.kind != '-' {
			newN++
		}
	}
	if oldN == 0 {
		oldStart--
	}
	if newN == 0 {
		newStart--
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(oldStart, oldN), hunkRange(newStart, newN))
	for _, op := range ops[start:end] {
		b.WriteByte(op.kind)
		if strings.HasSuffix(op.text, "\n") {
			b.WriteString(op.text)
		} else {
			b.WriteString(op.text + "\n\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// fileHeader names the two sides of a file's hunks, the way git diff
// does: a unified diff's header lines (not a SKILL.md fence, which only
// package skillmd reads).
const fileHeader = `--- %s
+++ %s
`

// Write prints changes the way git diff does, paths quoted as git quotes
// them (skillfs.QuotePath): a file named "x\n+++ b/y" is one quoted path,
// not a forged header line.
func Write(w io.Writer, changes []FileChange) error {
	for _, c := range changes {
		a, b := c.OldPath, c.NewPath
		if a == "" {
			a = b
		}
		if b == "" {
			b = a
		}
		fmt.Fprintf(w, "diff --git %s %s\n", skillfs.QuotePath("a/"+a), skillfs.QuotePath("b/"+b))
		switch c.Kind {
		case ChangeAdded:
			fmt.Fprintf(w, "new file mode %s\n", c.NewMode)
		case ChangeRemoved:
			fmt.Fprintf(w, "deleted file mode %s\n", c.OldMode)
		case ChangeRenamed:
			fmt.Fprintf(w, "rename from %s\nrename to %s\n", skillfs.QuotePath(c.OldPath), skillfs.QuotePath(c.NewPath))
		}
		if c.ModeChanged() {
			fmt.Fprintf(w, "old mode %s\nnew mode %s\n", c.OldMode, c.NewMode)
		}
		if c.Binary {
			fmt.Fprintf(w, "Binary files differ\n")
			continue
		}
		if c.Patch == "" {
			continue
		}
		from, to := skillfs.QuotePath("a/"+a), skillfs.QuotePath("b/"+b)
		if c.Kind == ChangeAdded {
			from = "/dev/null"
		}
		if c.Kind == ChangeRemoved {
			to = "/dev/null"
		}
		if _, err := fmt.Fprintf(w, fileHeader+"%s", from, to, c.Patch); err != nil {
			return err
		}
	}
	return nil
}
