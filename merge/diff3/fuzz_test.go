package diff3

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/gitmerge"
)

// FuzzMerge3 merges arbitrary triples. With git installed, the result must
// agree with git merge-file --diff3: the same bytes and the same number of
// conflicts. With or without git, it checks invariants that hold for any
// three-way merge.
func FuzzMerge3(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), []byte("a\nb\nC\n"))
	f.Add([]byte("a\nb\n"), []byte("a\nx\n"), []byte("a\ny\n"))
	f.Add([]byte("a\r\nb\r\n"), []byte("a\r\nx\r\n"), []byte("a\r\ny\r\n"))
	f.Add([]byte("a\nb"), []byte("a\nb\nc"), []byte("z\na\nb"))
	f.Add([]byte(""), []byte("x\n"), []byte("y\n"))
	f.Add([]byte("}\n}\n}\n"), []byte("}\nx\n}\n}\n"), []byte("}\n}\ny\n}\n"))
	_, err := exec.LookPath("git")
	haveGit := err == nil
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		got, err := Merge(base, ours, theirs, Options{})
		if errors.Is(err, ErrBinary) {
			return // git refuses these too
		}
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, base, ours, theirs, got)
		if !haveGit {
			return
		}
		want, code := gitmerge.MergeFile(t, dir, base, ours, theirs, "--diff3")
		if code != min(len(got.Conflicts), 127) || !bytes.Equal(got.Merged, want) {
			t.Fatalf("git merge-file (exit %d):\n%q\nMerge (%d conflicts):\n%q", code, want, len(got.Conflicts), got.Merged)
		}
	})
}

// checkInvariants holds for any correct three-way merge of text.
func checkInvariants(t *testing.T, base, ours, theirs []byte, got *Result) {
	t.Helper()
	again, _ := Merge(base, ours, theirs, Options{})
	if !bytes.Equal(again.Merged, got.Merged) {
		t.Fatal("merge is not deterministic")
	}
	switch {
	case bytes.Equal(ours, theirs):
		if !got.Clean() || !bytes.Equal(got.Merged, ours) {
			t.Fatalf("ours == theirs must merge to ours, got %q", got.Merged)
		}
	case bytes.Equal(base, ours):
		if !got.Clean() || !bytes.Equal(got.Merged, theirs) {
			t.Fatalf("unchanged ours must merge to theirs, got %q", got.Merged)
		}
	case bytes.Equal(base, theirs):
		if !got.Clean() || !bytes.Equal(got.Merged, ours) {
			t.Fatalf("unchanged theirs must merge to ours, got %q", got.Merged)
		}
	}
	lines := map[string][]string{"ours": splitLines(string(ours)), "base": splitLines(string(base)), "theirs": splitLines(string(theirs))}
	for _, c := range got.Conflicts {
		for name, s := range map[string]Section{"ours": c.Ours, "base": c.Base, "theirs": c.Theirs} {
			l := lines[name]
			if s.Start < 1 || s.Start-1+s.Count > len(l) || strings.Join(l[s.Start-1:s.Start-1+s.Count], "") != s.Text {
				t.Fatalf("conflict section %s %+v does not match the %s text", name, s, name)
			}
		}
	}
	if !got.Clean() && !bytes.Contains(got.Merged, []byte("<<<<<<< ours")) {
		t.Fatal("a conflicted merge without markers")
	}
	for _, favor := range []Favor{FavorOurs, FavorTheirs, FavorUnion} {
		if r, _ := Merge(base, ours, theirs, Options{Favor: favor}); !r.Clean() {
			t.Fatalf("favor %d left conflicts", favor)
		}
	}
}
