package merge

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzSkillMD merges arbitrary triples with SkillMD: where the line merge
// (Text, git merge-file's result) is clean, SkillMD must give it unchanged,
// and a frontmatter it merged key by key must parse.
func FuzzSkillMD(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), []byte("a\nb\nC\n"))
	f.Add([]byte("---\nname: a\ndescription: d\n---\nbody\n"),
		[]byte("---\nname: a\ndescription: d\nlicense: MIT\n---\nbody\n"),
		[]byte("---\nname: a\ndescription: better\n---\nbody\n"))
	f.Add([]byte("---\nname: a\nmetadata:\n  k: v\n---\nb\n"),
		[]byte("---\nname: a\nmetadata:\n  k: v\n  o: 1\n---\nb\n"),
		[]byte("---\nname: a\nmetadata:\n  k: w\n---\nc\n"))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		text, err := Text(base, ours, theirs, Options{})
		if errors.Is(err, ErrBinary) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkSkillMD(t, base, ours, theirs, text)
		again, _ := SkillMD(base, ours, theirs, Options{})
		if first, _ := SkillMD(base, ours, theirs, Options{}); !bytes.Equal(first.Merged, again.Merged) {
			t.Fatal("SkillMD is not deterministic")
		}
	})
}

// checkSkillMD: SkillMD gives Text's result when that is clean, and a
// frontmatter it merged key by key parses.
func checkSkillMD(t *testing.T, base, ours, theirs []byte, text *TextResult) {
	t.Helper()
	got, err := SkillMD(base, ours, theirs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if text.Clean() && (!got.Clean() || !bytes.Equal(got.Merged, text.Merged) || got.Frontmatter) {
		t.Fatalf("SkillMD differs from a clean line merge: %q", got.Merged)
	}
	if got.Frontmatter {
		if _, ok := splitFrontmatter(string(got.Merged)); !ok {
			t.Fatalf("SkillMD wrote a frontmatter that does not parse: %q", got.Merged)
		}
	}
}
