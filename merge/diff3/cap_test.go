package diff3

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// hostileLines is n lines drawn from the first letters of the alphabet:
// two such files have everything in common line by line and almost
// nothing in order, the worst case of a line diff.
func hostileLines(r *rand.Rand, n, letters int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a'+r.IntN(letters))) + "\n"
	}
	return out
}

// TestCappedDiffIsAnEditScript: a diff cut short by its budget, at any
// point, is still an edit script from a to b (its unchanged lines pair up
// equal and in order), so a merge built on it loses nothing.
func TestCappedDiffIsAnEditScript(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, budget := range []int{0, 1, 100, 10000, 1000000} {
		for _, letters := range []int{2, 5, 26} {
			in := newInterner(0)
			a := in.intern(splitText(strings.Join(hostileLines(r, 3000, letters), "")))
			b := in.intern(splitText(strings.Join(hostileLines(r, 2500, letters), "")))
			d := differ{nIDs: in.count(), budget: func(int) int { return budget }}
			var got []lineID
			i := 0
			for _, h := range d.diff(a, b) {
				got = append(got, a[i:h.i1]...)
				got = append(got, b[h.i2:h.i2+h.chg2]...)
				i = h.i1 + h.chg1
			}
			got = append(got, a[i:]...)
			if !slices.Equal(got, b) {
				t.Fatalf("budget %d, %d letters: the capped diff is no edit script", budget, letters)
			}
			if !d.capped && budget < 10000 {
				t.Errorf("budget %d, %d letters: the diff was not capped", budget, letters)
			}
		}
	}
}

// TestCapWholeFileConflict: with no budget at all (Quick), two sides that
// both changed the file merge into one conflict holding each whole version
// between the lines all three share at the start and the end, and the
// result says it is coarse.
func TestCapWholeFileConflict(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	head, tail := "# Title\n\nintro\n", "\nthe end\n"
	body := func() string { return strings.Join(hostileLines(r, 2000, 3), "") }
	base, ours, theirs := head+body()+tail, head+body()+tail, head+body()+tail
	got, err := Quick([]byte(base), []byte(ours), []byte(theirs), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Coarse || len(got.Conflicts) != 1 {
		t.Fatalf("coarse %v, %d conflicts; want one whole-file conflict", got.Coarse, len(got.Conflicts))
	}
	strip := func(s string) string { return strings.TrimSuffix(strings.TrimPrefix(s, head), tail) }
	c := got.Conflicts[0]
	if c.Ours.Text != strip(ours) || c.Base.Text != strip(base) || c.Theirs.Text != strip(theirs) {
		t.Error("the conflict's sections are not the three whole versions")
	}
	want := head + "<<<<<<< ours\n" + strip(ours) + "||||||| base\n" + strip(base) + "=======\n" + strip(theirs) + ">>>>>>> theirs\n" + tail
	if string(got.Merged) != want {
		t.Errorf("merged text is not the whole-file conflict; first difference at byte %d", firstDiff(got.Merged, []byte(want)))
	}
}

// TestCapKeepsOneSidedChanges: where a capped diff gives up, the rest of
// that side is one change; a change the other side made before it (here
// in the first lines, which the two share) is still taken cleanly, and
// each side's change alone is taken whole, with a budget at every size.
func TestCapKeepsOneSidedChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var header []string
	for i := range 40 {
		header = append(header, fmt.Sprintf("header line %d\n", i))
	}
	baseBody, oursBody := hostileLines(r, 4000, 4), hostileLines(r, 4000, 4)
	base := strings.Join(header, "") + strings.Join(baseBody, "")
	ours := strings.Join(header, "") + strings.Join(oursBody, "")
	changed := slices.Clone(header)
	changed[10] = "header line 10, reworded\n"
	theirs := strings.Join(changed, "") + strings.Join(baseBody, "")
	want := strings.Join(changed, "") + strings.Join(oursBody, "")
	for _, budget := range []int{0, 1000, 100000, 1 << 30} {
		for _, style := range []Style{Diff3, Plain, ZDiff3} {
			got := mergeBudgeted(base, ours, theirs, Options{Style: style}, func(int) int { return budget })
			if !got.Clean() || string(got.Merged) != want {
				t.Errorf("budget %d, style %d: %d conflicts; want theirs' change in the header and ours' body, clean", budget, style, len(got.Conflicts))
			}
			// The same change on both sides is taken once, however coarse.
			same := mergeBudgeted(base, ours, ours, Options{Style: style}, func(int) int { return budget })
			if !same.Clean() || string(same.Merged) != ours {
				t.Errorf("budget %d, style %d: the same change on both sides does not merge to it", budget, style)
			}
		}
	}
}

// TestCapHostileMergeEnds: a merge of 200,000-line files of three letters
// each side reordered (the shape of the attack that held a store's lock
// for minutes at 500,000 lines) ends with the default budget, is coarse,
// and its conflicts hold the files' own lines.
func TestCapHostileMergeEnds(t *testing.T) {
	if testing.Short() {
		t.Skip("a large merge")
	}
	r := rand.New(rand.NewPCG(13, 14))
	base := strings.Join(hostileLines(r, 200000, 3), "")
	ours := strings.Join(hostileLines(r, 200000, 3), "")
	theirs := strings.Join(hostileLines(r, 200000, 3), "")
	got, err := Merge([]byte(base), []byte(ours), []byte(theirs), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Coarse || got.Clean() {
		t.Fatalf("coarse %v, %d conflicts: want a coarse merge with conflicts", got.Coarse, len(got.Conflicts))
	}
	for _, c := range got.Conflicts {
		for _, s := range []struct {
			sec  Section
			text string
		}{{c.Ours, ours}, {c.Base, base}, {c.Theirs, theirs}} {
			l := splitText(s.text)
			if l.span(s.sec.Start-1, s.sec.Start-1+s.sec.Count) != s.sec.Text {
				t.Fatalf("a conflict section is not lines %d+%d of its version", s.sec.Start, s.sec.Count)
			}
		}
	}
}
