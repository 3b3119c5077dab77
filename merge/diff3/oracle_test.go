package diff3

import (
	"bytes"
	"fmt"
	"github.com/skillstore/skillstore/internal/gitmerge"
	"math/rand/v2"
	"strings"
	"testing"
)

// genTriple makes a base of short, often repeated lines and two sides with
// random line edits: the inputs where diff alignment choices matter most.
func genTriple(r *rand.Rand) (base, ours, theirs []byte) {
	return genTripleFrom(r, []string{"a", "b", "c", "d", "{", "}", "", "x = 1", "return"}, 25)
}

// genProseTriple draws lines from a large vocabulary, so most lines are
// distinct, as in real documents.
func genProseTriple(r *rand.Rand) (base, ours, theirs []byte) {
	vocab := make([]string, 300)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("sentence %d of the document", i)
	}
	vocab = append(vocab, "", "", "---") // blank lines and rules do repeat
	return genTripleFrom(r, vocab, 60)
}

// genLargeTriple makes files of a few thousand lines, mostly distinct with
// some repeated, and hundreds of edits on each side: costs high enough that
// git's Myers diff stops being minimal (its snake heuristic and its cost
// cut-off), so those choices are checked against git too.
func genLargeTriple(r *rand.Rand) (base, ours, theirs []byte) {
	vocab := make([]string, 4000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("line %d", i)
	}
	vocab = append(vocab, "", "", "", "}", "}", "return", "---")
	band := 0
	if r.IntN(2) == 0 {
		band = 200 // edits kept apart, so that many of these merges are clean
	}
	return genEditedTriple(r, vocab, 1500+r.IntN(3000), 300+r.IntN(1200), band)
}

// genHugeTriple is genLargeTriple at 35,000 lines: big enough for git's
// cost cut-off to rise above the snake heuristic's threshold.
func genHugeTriple(r *rand.Rand) (base, ours, theirs []byte) {
	vocab := make([]string, 40000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("line %d", i)
	}
	vocab = append(vocab, "", "", "", "}", "}", "return", "---")
	return genEditedTriple(r, vocab, 33000+r.IntN(4000), 1000+r.IntN(3000), 500*r.IntN(2))
}

func genTripleFrom(r *rand.Rand, alphabet []string, maxLines int) (base, ours, theirs []byte) {
	return genEditedTriple(r, alphabet, r.IntN(maxLines), 4, 0)
}

// genEditedTriple makes a base of n lines from alphabet and two sides with
// up to edits random line insertions, deletions and replacements each. With
// band > 0, ours edits only the middle of even bands of that many lines and
// theirs only odd ones.
func genEditedTriple(r *rand.Rand, alphabet []string, n, edits, band int) (base, ours, theirs []byte) {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = alphabet[r.IntN(len(alphabet))]
	}
	eol := "\n"
	if r.IntN(10) == 0 {
		eol = "\r\n"
	}
	render := func(ls []string) []byte {
		if len(ls) == 0 {
			return nil
		}
		s := strings.Join(ls, eol) + eol
		if r.IntN(8) == 0 {
			s = strings.TrimSuffix(s, eol)
		}
		return []byte(s)
	}
	edit := func(side int) []string {
		out := append([]string(nil), lines...)
		for range r.IntN(edits + 1) {
			pos := r.IntN(len(out) + 1)
			if band > 0 {
				block := 2*r.IntN(len(out)/band/2+1) + side
				pos = min(block*band+band/5+r.IntN(band*3/5), len(out))
			}
			line := alphabet[r.IntN(len(alphabet))]
			if r.IntN(3) == 0 {
				line = fmt.Sprintf("new %d", r.IntN(4))
			}
			switch r.IntN(3) {
			case 0: // insert
				out = append(out[:pos], append([]string{line}, out[pos:]...)...)
			case 1: // delete
				if pos < len(out) {
					out = append(out[:pos], out[pos+1:]...)
				}
			default: // replace
				if pos < len(out) {
					out[pos] = line
				}
			}
		}
		return out
	}
	return render(lines), render(edit(0)), render(edit(1))
}

// TestOracleGitMergeFile compares Merge with the real git merge-file over a
// seeded corpus of generated triples, in all three conflict styles. The
// corpora go from short files of a few repeated lines, where alignment
// choices matter most, to 35,000-line files with thousands of edits, where
// a diff gives up on being a shortest one past a cost limit.
//
// No diff of these corpora reaches the diff budget (Result.Coarse). On
// the corpora of short files every triple must give git's bytes and
// git's conflict count. On the large ones (large: true) a few diffs pass
// the cost limit and settle differently than git's: there a triple may
// differ from git's output only as another pairing of the same changes
// does (see equivalentMerge), and the test logs how many did.
func TestOracleGitMergeFile(t *testing.T) {
	gitmerge.Require(t)
	dir := t.TempDir()
	styles := []struct {
		name  string
		style Style
		args  []string
		n     int
		gen   func(*rand.Rand) ([]byte, []byte, []byte)
		large bool
	}{
		{"diff3", Diff3, []string{"--diff3"}, 2000, genTriple, false},
		{"merge", Plain, nil, 600, genTriple, false},
		{"zdiff3", ZDiff3, []string{"--zdiff3"}, 600, genTriple, false},
		{"diff3-prose", Diff3, []string{"--diff3"}, 600, genProseTriple, false},
		{"diff3-large", Diff3, []string{"--diff3"}, 60, genLargeTriple, true},
		{"merge-large", Plain, nil, 60, genLargeTriple, true},
		{"diff3-huge", Diff3, []string{"--diff3"}, 10, genHugeTriple, true},
	}
	if testing.Short() {
		for i := range styles {
			styles[i].n /= 10
		}
	}
	for _, st := range styles {
		t.Run(st.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(42, uint64(st.style)))
			var clean, conflicted, agree, equivalent int
			for i := range st.n {
				base, ours, theirs := st.gen(r)
				want, code := gitmerge.MergeFile(t, dir, base, ours, theirs, st.args...)
				got, err := Merge(base, ours, theirs, Options{Style: st.style})
				if err != nil {
					t.Fatal(err)
				}
				if got.Coarse {
					// The diff budget is for hostile input only: edits,
					// even thousands, never reach it.
					t.Errorf("case %d: a diff ran out of its budget", i)
				}
				if code == 0 {
					clean++
				} else {
					conflicted++
				}
				// git merge-file exits with the number of conflicts, capped at 127.
				if bytes.Equal(got.Merged, want) && code == min(len(got.Conflicts), 127) {
					agree++
					continue
				}
				if st.large {
					if why := equivalentMerge(base, ours, theirs, want, code, got, st.style); why != "" {
						t.Errorf("case %d: %s; outputs first differ at byte %d", i, why, firstDiff(got.Merged, want))
					} else {
						equivalent++
					}
					continue
				}
				if len(base)+len(ours)+len(theirs) > 4000 {
					t.Errorf("case %d: git exit %d, Text %d conflicts; outputs first differ at byte %d",
						i, code, len(got.Conflicts), firstDiff(got.Merged, want))
					continue
				}
				t.Errorf("case %d: git exit %d, Text %d conflicts\nbase:\n%q\nours:\n%q\ntheirs:\n%q\ngit:\n%q\ngot:\n%q",
					i, code, len(got.Conflicts), base, ours, theirs, want, got.Merged)
			}
			t.Logf("%s: %d triples (git: %d clean, %d conflicted); the same bytes and conflict count as git in %d (%.2f%%), another pairing of the same changes in %d",
				st.name, st.n, clean, conflicted, agree, pct(agree, st.n), equivalent)
		})
	}
}

// equivalentMerge says why got, Merge's result, is not merely another
// pairing of equal-cost alignments than git's output want (exit code
// code), or "" if it is. It is when the conflict counts are the same and,
// for a clean merge, both results hold both sides' changes: merging either
// side again into the result, over the base, changes nothing (a change that
// a result lacked would be added, or would conflict).
func equivalentMerge(base, ours, theirs, want []byte, code int, got *Result, style Style) string {
	if code != min(len(got.Conflicts), 127) {
		return fmt.Sprintf("git has %d conflicts, Merge %d", code, len(got.Conflicts))
	}
	if code != 0 {
		return ""
	}
	for _, res := range []struct {
		name   string
		merged []byte
	}{{"git's", want}, {"Merge's", got.Merged}} {
		for _, side := range []struct {
			name string
			data []byte
		}{{"ours", ours}, {"theirs", theirs}} {
			again, err := Merge(base, res.merged, side.data, Options{Style: style})
			if err != nil {
				return err.Error()
			}
			if !again.Clean() || !bytes.Equal(again.Merged, res.merged) {
				return fmt.Sprintf("clean, but %s result lacks some of %s' changes", res.name, side.name)
			}
		}
	}
	return ""
}

// firstDiff is the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

// TestEquivalentMergeRejectsErrors: the relaxed comparison of the large
// corpora still fails a merge that drops a change or counts conflicts
// differently, and accepts an identical one.
func TestEquivalentMergeRejectsErrors(t *testing.T) {
	base, ours, theirs := []byte("a\nb\nc\nd\ne\n"), []byte("A\nb\nc\nd\ne\n"), []byte("a\nb\nc\nd\nE\n")
	want := []byte("A\nb\nc\nd\nE\n")
	cases := []struct {
		name string
		got  *Result
		ok   bool
	}{
		{"same result", &Result{Merged: want}, true},
		{"theirs' change dropped", &Result{Merged: ours}, false},
		{"ours' change dropped", &Result{Merged: theirs}, false},
		{"a conflict git does not have", &Result{Merged: want, Conflicts: []Conflict{{}}}, false},
	}
	for _, c := range cases {
		if why := equivalentMerge(base, ours, theirs, want, 0, c.got, Diff3); (why == "") != c.ok {
			t.Errorf("%s: equivalentMerge says %q", c.name, why)
		}
	}
	if why := equivalentMerge(base, ours, theirs, want, 2, &Result{Merged: want, Conflicts: []Conflict{{}}}, Diff3); why == "" {
		t.Error("1 conflict against git's 2 was accepted")
	}
}
