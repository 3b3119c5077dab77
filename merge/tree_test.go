package merge

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMergeTreesRejectsInvalidTrees: paths that could escape the skill
// folder or are not in canonical form, and unknown modes, are errors.
func TestMergeTreesRejectsInvalidTrees(t *testing.T) {
	for _, tc := range []struct {
		name string
		tree Tree
	}{
		{"empty path", Tree{"": {}}},
		{"absolute", Tree{"/etc/passwd": {}}},
		{"parent", Tree{"../x": {}}},
		{"unclean", Tree{"a//b": {}}},
		{"dot", Tree{"./a": {}}},
		{"mode", Tree{"a": {Mode: 9}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := MergeTrees(nil, tc.tree, nil, Options{})
			if !errors.Is(err, ErrInvalidTree) {
				t.Fatalf("got %v, want ErrInvalidTree", err)
			}
		})
	}
	if _, err := MergeTrees(Tree{"scripts/run.sh": {}}, nil, Tree{"SKILL.md": {}}, Options{}); err != nil {
		t.Fatalf("valid trees: %v", err)
	}
}

// TestMergeTreesNothingDropped merges random trees and checks, path by path,
// that every change from either side is in the merged tree or reported as a
// conflict at that path, and that conflicts happen only where both sides
// changed the path differently.
func TestMergeTreesNothingDropped(t *testing.T) {
	variants := []*File{
		nil,
		{Mode: Regular, Data: []byte("a\nb\nc\n")},
		{Mode: Regular, Data: []byte("A\nb\nc\n")},
		{Mode: Regular, Data: []byte("a\nb\nC\n")},
		{Mode: Executable, Data: []byte("a\nb\nc\n")},
		{Mode: Executable, Data: []byte("a\nB\nc\n")},
		{Mode: Symlink, Data: []byte("target")},
		{Mode: Regular, Data: []byte("bin\x00ary")},
		{Mode: Regular, Data: []byte("bin\x00ARY")},
	}
	paths := []string{"SKILL.md", "run.sh", "refs/a.md", "assets/logo.bin"}
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 3000 {
		trees := [3]Tree{{}, {}, {}}
		for _, p := range paths {
			for k := range trees {
				if v := variants[r.IntN(len(variants))]; v != nil {
					trees[k][p] = *v
				}
			}
		}
		base, ours, theirs := trees[0], trees[1], trees[2]
		res, err := MergeTrees(base, ours, theirs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		conflicted := map[string]bool{}
		for _, c := range res.Conflicts {
			conflicted[c.Path] = true
		}
		for _, p := range paths {
			b, o, th := lookup(base, p), lookup(ours, p), lookup(theirs, p)
			m := lookup(res.Tree, p)
			oursChanged, theirsChanged := !sameFile(b, o), !sameFile(b, th)
			if conflicted[p] {
				if !oursChanged || !theirsChanged || sameFile(o, th) {
					t.Fatalf("case %d %s: conflict although at most one side changed it", n, p)
				}
				if m == nil {
					t.Fatalf("case %d %s: conflicted path dropped from the merged tree", n, p)
				}
				continue
			}
			switch {
			case !theirsChanged && !sameFile(m, o), !oursChanged && !sameFile(m, th):
				t.Fatalf("case %d %s: one-sided change not taken: got %+v", n, p, m)
			case oursChanged && theirsChanged && !sameFile(o, th):
				// A clean text merge: it holds both sides' data changes and
				// the merged mode.
				if m == nil || o == nil || th == nil {
					t.Fatalf("case %d %s: clean merge of a deletion and a change", n, p)
				}
				for _, side := range []*File{o, th} {
					if b != nil && side.Mode != b.Mode && m.Mode != side.Mode {
						t.Fatalf("case %d %s: mode change lost", n, p)
					}
				}
				if b != nil && bytes.Equal(m.Data, b.Data) && (!bytes.Equal(o.Data, b.Data) || !bytes.Equal(th.Data, b.Data)) {
					t.Fatalf("case %d %s: data changes lost", n, p)
				}
			}
		}
	}
}

// TestSkillMDBodyWithLateNUL: a NUL byte past the first 8000 bytes of the
// file passes git's binary test for the whole file but can fall within the
// first 8000 bytes of the body. SkillMD then keeps the line merge of the
// whole file (git's result) rather than failing or dropping the body.
func TestSkillMDBodyWithLateNUL(t *testing.T) {
	body := strings.Repeat("instructions\n", 612) + "0123456789abcdef\x00 tail\n" // the NUL is body byte 7,972
	heads := []string{"---\nname: a\ndescription: old\n---\n", "---\nname: a\ndescription: old\nallowed-tools: Bash\n---\n", "---\nname: a\ndescription: new\n---\n"}
	for _, h := range heads {
		if i := len(h) + strings.IndexByte(body, 0); i < 8000 || i-len(h) >= 8000 {
			t.Fatalf("the NUL is at %d: the test needs it past the file's first 8000 bytes and within the body's", i)
		}
	}
	base, ours, theirs := []byte(heads[0]+body), []byte(heads[1]+body), []byte(heads[2]+body)
	line, err := Text(base, ours, theirs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := SkillMD(base, ours, theirs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Frontmatter || !bytes.Equal(got.Merged, line.Merged) || len(got.Conflicts) != len(line.Conflicts) {
		t.Fatalf("SkillMD = %d conflicts (frontmatter %v), want the line merge's %d", len(got.Conflicts), got.Frontmatter, len(line.Conflicts))
	}
	if line.Clean() {
		t.Fatal("the line merge was expected to conflict on the adjacent frontmatter lines")
	}
}
