package diff3

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// TestInternLikeMatchesIntern: the shortcut that reuses the base's IDs for
// unchanged lines gives exactly the IDs a lookup of every line gives.
func TestInternLikeMatchesIntern(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		base, ours, _ := genTriple(r)
		b, o := splitText(string(base)), splitText(string(ours))
		slow := newInterner(0)
		wantB, wantO := slow.intern(b), slow.intern(o)
		fast := newInterner(0)
		gotB := fast.intern(b)
		gotO := fast.internLike(o, b, gotB)
		if !slices.Equal(gotB, wantB) || !slices.Equal(gotO, wantO) {
			t.Fatalf("internLike(%q, %q) = %v, want %v", ours, base, gotO, wantO)
		}
	}
}

// TestDiffLinesIsAnEditScript: applying the hunks of differ.diff(a, b) to a
// gives b, for generated inputs full of repeated lines.
func TestDiffLinesIsAnEditScript(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		base, ours, _ := genTriple(r)
		in := newInterner(0)
		a, b := in.intern(splitText(string(base))), in.intern(splitText(string(ours)))
		var got []lineID
		i := 0
		d := differ{nIDs: in.count()}
		for _, h := range d.diff(a, b) {
			if h.i1 < i || h.chg1 == 0 && h.chg2 == 0 {
				t.Fatalf("hunks out of order or empty: %+v", h)
			}
			got = append(got, a[i:h.i1]...)
			got = append(got, b[h.i2:h.i2+h.chg2]...)
			i = h.i1 + h.chg1
		}
		got = append(got, a[i:]...)
		if !slices.Equal(got, b) {
			t.Fatalf("edit script of %q → %q gives %v", base, ours, got)
		}
	}
}

// TestAlignIsMinimal checks the aligner against an independent Myers diff,
// go-diff's: below the aligner's cost limit both are minimal, so they change
// the same number of lines, and the aligner's marks are an edit script (the
// unmarked lines of a and b are the same sequence).
func TestAlignIsMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	for range 5000 {
		a, b := randomIDs(r, 60, 5), randomIDs(r, 60, 5)
		chgA, chgB := make([]bool, len(a)), make([]bool, len(b))
		var al aligner
		al.align(a, b, chgA, chgB, diffBudget(len(a)+len(b)))
		if !slices.Equal(unmarked(a, chgA), unmarked(b, chgB)) {
			t.Fatalf("align(%v, %v): the lines left unchanged differ", a, b)
		}
		got := count(chgA) + count(chgB)
		want := 0
		for _, d := range dmp.DiffMainRunes(idRunes(a), idRunes(b), false) {
			if d.Type != diffmatchpatch.DiffEqual {
				want += utf8.RuneCountInString(d.Text)
			}
		}
		if got != want {
			t.Fatalf("align(%v, %v) changes %d lines, go-diff %d", a, b, got, want)
		}
	}
}

// randomIDs is up to n lines drawn from k distinct ones.
func randomIDs(r *rand.Rand, n, k int) []lineID {
	ids := make([]lineID, r.IntN(n))
	for i := range ids {
		ids[i] = lineID(r.IntN(k))
	}
	return ids
}

func unmarked(ids []lineID, chg []bool) []lineID {
	var out []lineID
	for i, id := range ids {
		if !chg[i] {
			out = append(out, id)
		}
	}
	return out
}

func count(marks []bool) int {
	n := 0
	for _, m := range marks {
		if m {
			n++
		}
	}
	return n
}

func idRunes(ids []lineID) []rune {
	rs := make([]rune, len(ids))
	for i, id := range ids {
		rs[i] = 'A' + rune(id)
	}
	return rs
}
