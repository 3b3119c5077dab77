package diff3

import (
	"slices"
	"strings"
	"testing"
)

// TestSlidePlacesRuns checks the two placement rules of slide.go on diffs
// whose result git diff -U0 --no-indent-heuristic shows: a run that can
// move goes as far down as it can, unless on its way it faced a change in
// the other file, where it stays as a replacement.
func TestSlidePlacesRuns(t *testing.T) {
	cases := []struct {
		a, b     string
		del, ins []bool
	}{
		// "+b" then "-a -a -} -b" at lines 3-6: the alignment deletes the
		// first two a's, and sliding moves that run down until it joins
		// the deletion of "} b".
		{"a a a a } b", "b a a", []bool{false, false, true, true, true, true}, []bool{true, false, false}},
		// "-}" at line 3: of two equal lines, the later one is deleted.
		{"x } } y", "x } y", []bool{false, false, true, false}, []bool{false, false, false}},
		// "-p -q +N": the run "p q" could go down two lines, but at the top
		// it faces the inserted N, and stays there.
		{"p q p q z", "N p q z", []bool{true, true, false, false, false}, []bool{true, false, false, false}},
	}
	for _, c := range cases {
		in := newInterner(0)
		a := in.intern(splitText(strings.ReplaceAll(c.a, " ", "\n") + "\n"))
		b := in.intern(splitText(strings.ReplaceAll(c.b, " ", "\n") + "\n"))
		d := differ{nIDs: in.count()}
		d.diff(a, b)
		if !slices.Equal(d.del, c.del) || !slices.Equal(d.ins, c.ins) {
			t.Errorf("diff %q → %q: deleted %v inserted %v, want %v %v", c.a, c.b, d.del, d.ins, c.del, c.ins)
		}
	}
}
