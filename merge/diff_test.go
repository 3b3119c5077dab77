package merge

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"
)

// TestInternLikeMatchesIntern: the shortcut that reuses the base's IDs for
// unchanged lines gives exactly the IDs a lookup of every line gives.
func TestInternLikeMatchesIntern(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		base, ours, _ := genTriple(r)
		b, o := splitLines(string(base)), splitLines(string(ours))
		slow := newInterner(0)
		wantB, wantO := slow.intern(b), slow.intern(o)
		fast := newInterner(0)
		gotB := fast.intern(b)
		gotO := fast.internLike(o, b, gotB)
		if !slices.Equal(gotB, wantB) || !slices.Equal(gotO, wantO) {
			t.Fatalf("internLike(%q, %q) = %v, want %v", o, b, gotO, wantO)
		}
	}
}

// TestDiffLinesIsAnEditScript: applying the hunks of diffLines(a, b) to a
// gives b, for generated inputs full of repeated lines.
func TestDiffLinesIsAnEditScript(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		base, ours, _ := genTriple(r)
		in := newInterner(0)
		a, b := in.intern(splitLines(string(base))), in.intern(splitLines(string(ours)))
		var got []lineID
		i := 0
		for _, h := range diffLines(a, b, len(in.ids)) {
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

// TestLineRuneIsValid: every line ID go-diff can be given maps to a valid,
// distinct rune (a surrogate would turn into U+FFFD inside go-diff's strings
// and merge distinct lines).
func TestLineRuneIsValid(t *testing.T) {
	prev := rune(-1)
	for _, id := range []lineID{0, 1, surrogateStart - 1, surrogateStart, surrogateStart + 1, maxRuneLines - 1} {
		r := lineRune(id)
		if !utf8.ValidRune(r) || r <= prev {
			t.Fatalf("lineRune(%d) = %U: not a valid rune above %U", id, r, prev)
		}
		prev = r
	}
	if lineRune(maxRuneLines-1) != utf8.MaxRune {
		t.Fatalf("the last ID maps to %U, want %U", lineRune(maxRuneLines-1), utf8.MaxRune)
	}
}
