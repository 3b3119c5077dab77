package merge

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// checkKeepsBoth is the merge benchmark's judge of a clean result: it fails
// a result that drops a word, mark or line end either side added, or brings
// back one either side deleted. It reads only the four texts, not how the
// merge was made. Per token t (propertyTokens) with d_o and d_t the changes
// of its count from base to ours and to theirs, a merge that takes each
// side's changes (the same change on both sides once) has
//
//	base + d_o + d_t - min(d_o⁺, d_t⁺)  <=  result  <=  base + d_o + d_t + min(d_o⁻, d_t⁻)
//
// where the min terms allow for an addition or a deletion both sides made,
// which is taken once, and are capped by the tokens of the lines both sides
// added (or deleted) alike: an added blank line on one side and an added
// line on the other are two additions, both owed. A result outside the
// bounds lost a side's change.
func checkKeepsBoth(base, ours, theirs, result []byte) error {
	count := func(s []byte) map[string]int {
		m := map[string]int{}
		for _, tok := range propertyTokens(string(s)) {
			m[tok]++
		}
		return m
	}
	b, o, t, r := count(base), count(ours), count(theirs), count(result)
	toks := map[string]bool{}
	for _, m := range []map[string]int{b, o, t, r} {
		for tok := range m {
			toks[tok] = true
		}
	}
	pos := func(d int) int { return max(d, 0) }
	neg := func(d int) int { return max(-d, 0) }
	// The tokens of the lines both sides added alike, and deleted alike.
	lines := func(s []byte) map[string]int {
		m := map[string]int{}
		for _, l := range strings.SplitAfter(string(s), "\n") {
			m[l]++
		}
		return m
	}
	lb, lo, lt := lines(base), lines(ours), lines(theirs)
	addedBoth, deletedBoth := map[string]int{}, map[string]int{}
	for _, m := range []map[string]int{lo, lt, lb} {
		for l := range m {
			if n := min(lo[l], lt[l]) - lb[l]; n > 0 && addedBoth[l] == 0 {
				addedBoth[l] = n
			}
			if n := lb[l] - max(lo[l], lt[l]); n > 0 && deletedBoth[l] == 0 {
				deletedBoth[l] = n
			}
		}
	}
	tokensOf := func(ls map[string]int) map[string]int {
		m := map[string]int{}
		for l, n := range ls {
			for _, tok := range propertyTokens(l) {
				m[tok] += n
			}
		}
		return m
	}
	sameAdd, sameDel := tokensOf(addedBoth), tokensOf(deletedBoth)
	// Both sides ending a last line that had no line end: one change,
	// one line end owed (propertyTokens counts "\r\n" as "\n").
	endedBoth := len(base) > 0 && !bytes.HasSuffix(base, []byte("\n")) && bytes.HasSuffix(ours, []byte("\n")) && bytes.HasSuffix(theirs, []byte("\n"))
	var problems []string
	for tok := range toks {
		do, dt := o[tok]-b[tok], t[tok]-b[tok]
		low := b[tok] + do + dt - min(pos(do), pos(dt), sameAdd[tok])
		high := b[tok] + do + dt + min(neg(do), neg(dt), sameDel[tok])
		if tok == "\n" && endedBoth {
			low--
		}
		switch n := r[tok]; {
		case n < low:
			problems = append(problems, fmt.Sprintf("%q %d times, at least %d (ours %+d, theirs %+d): a side's addition dropped", tok, n, low, do, dt))
		case n > high:
			problems = append(problems, fmt.Sprintf("%q %d times, at most %d (ours %+d, theirs %+d): a side's deletion undone", tok, n, high, do, dt))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return fmt.Errorf("the merge loses a side's change: %s", strings.Join(problems, "; "))
	}
	return nil
}

// TestCheckerCatchesLossyMerges gives checkKeepsBoth the right merge of
// triples (it must pass) and deliberately lossy merges of the same triples,
// each losing one side's change in another way (it must fail each).
func TestCheckerCatchesLossyMerges(t *testing.T) {
	base := "---\nname: C# Expert\ndescription: Helps with C# code.\ntags: [\"dotnet\", \"csharp\",]\n---\n# C# Expert\n\nUse it for C# code.\nAsk before deleting files.\n"
	ours := "---\nname: C# Expert\ndescription: Helps with C# code.\ntags: [\"dotnet\", \"csharp\",]\nx-owner: platform\n---\n# C# Expert\n\nUse it for C# code (locally: .NET 8 only).\nAsk before deleting files.\n"
	theirs := "---\nname: \"C# Expert\"\ndescription: Helps with C# code.\ntags: [\"dotnet\", \"csharp\"]\n---\n# C# Expert\n\nUse it for C# code.\n\nAsk before deleting any file.\n"
	right := "---\nname: \"C# Expert\"\ndescription: Helps with C# code.\ntags: [\"dotnet\", \"csharp\"]\nx-owner: platform\n---\n# C# Expert\n\nUse it for C# code (locally: .NET 8 only).\n\nAsk before deleting any file.\n"
	if err := checkKeepsBoth([]byte(base), []byte(ours), []byte(theirs), []byte(right)); err != nil {
		t.Fatalf("the right merge fails: %v", err)
	}
	// The same triple merged by the frontmatter and skill-aware merge must
	// pass too, and be the right merge.
	if got, err := SkillMD([]byte(base), []byte(ours), []byte(theirs), Options{SkillAware: true}); err != nil || !got.Clean() || string(got.Merged) != right {
		t.Errorf("SkillMD: %v, clean %v:\n%s", err, got != nil && got.Clean(), got.Merged)
	}
	lossy := map[string]string{
		"ours alone":   ours,
		"theirs alone": theirs,
		"the base":     base,
		// the bug of the value merge: ours' text of a key theirs requoted
		"theirs' quotes reverted":    strings.Replace(right, `name: "C# Expert"`, "name: C# Expert", 1),
		"theirs' removed comma back": strings.Replace(right, `"csharp"]`, `"csharp",]`, 1),
		"ours' new key dropped":      strings.Replace(right, "x-owner: platform\n", "", 1),
		"one word of ours dropped":   strings.Replace(right, " only)", ")", 1),
		"one word of theirs dropped": strings.Replace(right, "any file", "file", 1),
		"theirs' deleted word back":  strings.Replace(right, "any file", "any files", 1),
		"theirs' blank line dropped": strings.Replace(right, "only).\n\nAsk", "only).\nAsk", 1),
		"ours' sentence twice":       strings.Replace(right, "(locally: .NET 8 only).", "(locally: .NET 8 only) (locally: .NET 8 only).", 1),
		"a mark of ours dropped":     strings.Replace(right, ".NET", "NET", 1),
	}
	for name, text := range lossy {
		if text == right {
			t.Fatalf("%s: the lossy merge is the right one (the test is wrong)", name)
		}
		if err := checkKeepsBoth([]byte(base), []byte(ours), []byte(theirs), []byte(text)); err == nil {
			t.Errorf("%s: the checker passes a lossy merge:\n%s", name, text)
		}
	}
	// Where both sides made the same change, it is taken once: not a loss.
	same := strings.Replace(base, "C# code.\nAsk", "C# code.\nAsk twice", 1)
	if err := checkKeepsBoth([]byte(base), []byte(same), []byte(same), []byte(same)); err != nil {
		t.Errorf("the same change on both sides: %v", err)
	}
	if err := checkKeepsBoth([]byte(base), []byte(same), []byte(same), []byte(base)); err == nil {
		t.Errorf("the same change on both sides, dropped: the checker passes it")
	}
}
