package merge

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// checkSkillAware checks a skill-aware merge (got) against the line merge of
// the same inputs (plain, diff3 style, the same labels) without using the
// rules' code:
//
//   - a clean line merge is returned unchanged, with no resolutions;
//   - every conflict is resolved or left, none appears or vanishes;
//   - outside the resolved conflicts, got is the line merge byte for byte;
//   - each resolution holds exactly the words, punctuation and line ends of
//     ours plus theirs minus the base in that conflict (so nothing either
//     side added is dropped, and nothing either side deleted comes back),
//     and an insertion rule holds exactly ours' lines plus theirs' lines.
//
// It returns the first property that fails.
func checkSkillAware(plain, got *TextResult, labels Labels) error {
	if plain.Clean() {
		if !bytes.Equal(got.Merged, plain.Merged) || len(got.Resolutions) > 0 || !got.Clean() {
			return fmt.Errorf("the line merge is clean, the skill-aware result differs: %q", got.Merged)
		}
		return nil
	}
	if len(got.Resolutions)+len(got.Conflicts) != len(plain.Conflicts) {
		return fmt.Errorf("%d conflicts, %d resolved + %d left", len(plain.Conflicts), len(got.Resolutions), len(got.Conflicts))
	}
	gotLines := strings.SplitAfter(string(got.Merged), "\n")
	var want strings.Builder
	rest := string(plain.Merged)
	next := 0 // the next resolution to match
	open := strings.Repeat("<", DefaultMarkerSize) + " " + labels.Ours
	end := strings.Repeat(">", DefaultMarkerSize) + " " + labels.Theirs
	for _, c := range plain.Conflicts {
		i := strings.Index(rest, open)
		j := strings.Index(rest[max(i, 0):], end)
		if i < 0 || j < 0 {
			return fmt.Errorf("conflict block not found in the line merge")
		}
		j += i + len(end)
		if strings.HasPrefix(rest[j:], "\r\n") {
			j += 2
		} else if strings.HasPrefix(rest[j:], "\n") {
			j++
		}
		want.WriteString(rest[:i])
		block := rest[i:j]
		rest = rest[j:]
		if next < len(got.Resolutions) {
			r := got.Resolutions[next]
			if r.Ours.Text == c.Ours.Text && r.Base.Text == c.Base.Text && r.Theirs.Text == c.Theirs.Text {
				next++
				if r.Line < 1 || r.Line-1+r.Count > len(gotLines) {
					return fmt.Errorf("resolution at lines %d+%d is outside the result", r.Line, r.Count)
				}
				text := strings.Join(gotLines[r.Line-1:r.Line-1+r.Count], "")
				if err := checkResolution(r, text); err != nil {
					return err
				}
				block = text
			}
		}
		want.WriteString(block)
	}
	want.WriteString(rest)
	if next != len(got.Resolutions) {
		return fmt.Errorf("resolution %d matches no conflict of the line merge", next)
	}
	if want.String() != string(got.Merged) {
		return fmt.Errorf("outside its resolutions, the result is not the line merge:\ngot:\n%s\nwant:\n%s", got.Merged, want.String())
	}
	return nil
}

// checkResolution: text = ours + theirs - base, counted in tokens; and in
// lines for the insertion rules.
func checkResolution(r Resolution, text string) error {
	count := func(s string, sign int, into map[string]int) {
		for _, tok := range propertyTokens(s) {
			into[tok] += sign
		}
	}
	diff := map[string]int{}
	count(text, 1, diff)
	count(r.Ours.Text, -1, diff)
	count(r.Theirs.Text, -1, diff)
	count(r.Base.Text, 1, diff)
	// Both sides ending a last line that had no line end is one change,
	// taken once (see joinInsertions).
	if b := r.Base.Text; b != "" && !strings.HasSuffix(b, "\n") && strings.HasSuffix(r.Ours.Text, "\n") && strings.HasSuffix(r.Theirs.Text, "\n") {
		diff["\n"]++
	}
	for tok, n := range diff {
		if n != 0 {
			return fmt.Errorf("rule %s at line %d: %q is in the result %+d times more than ours + theirs - base:\nbase %q\nours %q\ntheirs %q\nresult %q",
				r.Rule, r.Line, tok, n, r.Base.Text, r.Ours.Text, r.Theirs.Text, text)
		}
	}
	if r.Rule == RuleInsertions || r.Rule == RuleSections {
		lines := func(s string) []string {
			l := strings.SplitAfter(s, "\n")
			return slices.DeleteFunc(l, func(x string) bool { return x == "" })
		}
		got := lines(text)
		want := append(lines(r.Ours.Text), lines(r.Theirs.Text)...)
		slices.Sort(got)
		slices.Sort(want)
		if r.Base.Count != 0 || !slices.Equal(got, want) {
			return fmt.Errorf("rule %s at line %d: lines %q are not ours' and theirs' %q", r.Rule, r.Line, got, want)
		}
	}
	return nil
}

// propertyTokens counts what a reader sees: words (letters and digits), every
// other character that is not a space, and line ends.
func propertyTokens(s string) []string {
	var out []string
	word := -1
	for i, r := range s + " " {
		isW := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
		if word >= 0 && !isW {
			out = append(out, s[word:i])
			word = -1
		}
		switch {
		case isW:
			if word < 0 {
				word = i
			}
		case r == '\n':
			out = append(out, "\n")
		case r != ' ' && r != '\t' && r != '\r' && i < len(s):
			out = append(out, string(r))
		}
	}
	return out
}

// testLabels are labels that generated and fuzzed inputs do not hold.
func testLabels(texts ...[]byte) Labels {
	for n := 0; ; n++ {
		tag := fmt.Sprintf("check-%d", n)
		if !slices.ContainsFunc(texts, func(t []byte) bool { return bytes.Contains(t, []byte(tag)) }) {
			return Labels{Ours: "ours-" + tag, Base: "base-" + tag, Theirs: "theirs-" + tag}
		}
	}
}

// FuzzSkillAwareMarkdown merges random triples with Markdown and checks the
// properties of checkSkillAware against Text's line merge.
func FuzzSkillAwareMarkdown(f *testing.F) {
	f.Add([]byte("# T\n\nx\n"), []byte("# T\n\nx\n\n## Local\ny\n"), []byte("# T\n\nx\nz\n"))
	f.Add([]byte("# T\n\nbody\n"), []byte("# T\nPolicy.\n\nbody\n"), []byte("# T\nIntro.\n\nbody\n"))
	f.Add([]byte("a b c.\nd e f.\n"), []byte("a b c (x).\nd e f.\n"), []byte("A b c.\nd e F.\n"))
	f.Add([]byte("one\r\ntwo\r\n"), []byte("one\r\n1\r\ntwo\r\n"), []byte("one\r\n2\r\ntwo\r\n"))
	f.Add([]byte("x\ny"), []byte("x\nY"), []byte("x\ny\nz"))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		labels := testLabels(base, ours, theirs)
		plain, err := Text(base, ours, theirs, Options{Labels: labels})
		if errors.Is(err, ErrBinary) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := Markdown(base, ours, theirs, Options{Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSkillAware(plain, got, labels); err != nil {
			t.Fatalf("%v\nbase %q\nours %q\ntheirs %q", err, base, ours, theirs)
		}
	})
}

// TestSkillAwareRandomTexts runs the fuzz properties on random small texts
// from a small vocabulary, where conflicts are frequent.
func TestSkillAwareRandomTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 1))
	words := []string{"run", "the", "tests", "## Notes", "# Title", "", "fix", "it.", "```", "- item", "a b", "c, d"}
	line := func() string {
		var parts []string
		for range 1 + r.IntN(3) {
			parts = append(parts, words[r.IntN(len(words))])
		}
		return strings.Join(parts, " ")
	}
	edit := func(lines []string) []string {
		lines = slices.Clone(lines)
		for range 1 + r.IntN(3) {
			i := r.IntN(len(lines) + 1)
			switch r.IntN(4) {
			case 0:
				lines = slices.Insert(lines, i, line())
			case 1:
				if i < len(lines) {
					lines = slices.Delete(lines, i, i+1)
				}
			case 2:
				if i < len(lines) {
					lines[i] = lines[i] + " " + words[r.IntN(len(words))]
				}
			default:
				if i < len(lines) {
					f := strings.Fields(lines[i])
					if len(f) > 0 {
						f[r.IntN(len(f))] = words[r.IntN(len(words))]
					}
					lines[i] = strings.Join(f, " ")
				}
			}
		}
		return lines
	}
	join := func(l []string) []byte { return []byte(strings.Join(l, "\n") + "\n") }
	n := 3000
	if testing.Short() {
		n = 300
	}
	var conflicted, resolved int
	for i := range n {
		var base []string
		for range 2 + r.IntN(6) {
			base = append(base, line())
		}
		b, o, th := join(base), join(edit(base)), join(edit(base))
		labels := testLabels(b, o, th)
		plain, err := Text(b, o, th, Options{Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Markdown(b, o, th, Options{Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSkillAware(plain, got, labels); err != nil {
			t.Fatalf("case %d: %v\nbase %q\nours %q\ntheirs %q", i, err, b, o, th)
		}
		conflicted += len(plain.Conflicts)
		resolved += len(got.Resolutions)
	}
	t.Logf("%d random triples: %d conflicts of the line merge, %d resolved by the skill-aware rules, all checked", n, conflicted, resolved)
}

// TestDiffTokens checks the word diff on random token lists: applying the
// edits to a gives b, and the edit count is an LCS's.
func TestDiffTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "b", "c", " ", "\n"}
	gen := func() []string {
		out := make([]string, r.IntN(12))
		for i := range out {
			out[i] = alphabet[r.IntN(len(alphabet))]
		}
		return out
	}
	for range 5000 {
		a, b := gen(), gen()
		edits, ok := diffTokens(a, b)
		if !ok {
			t.Fatal("over the limits")
		}
		var applied []string
		pos, kept := 0, 0
		for _, e := range edits {
			applied = append(applied, a[pos:e.start]...)
			kept += e.start - pos
			applied = append(applied, e.repl...)
			pos = e.end
		}
		applied = append(applied, a[pos:]...)
		kept += len(a) - pos
		if !slices.Equal(applied, b) {
			t.Fatalf("edits of %q to %q give %q", a, b, applied)
		}
		if want := lcsLen(a, b); kept != want {
			t.Fatalf("%q to %q keeps %d tokens, the LCS has %d", a, b, kept, want)
		}
	}
}
