package merge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// bigText is a text of n numbered lines, line i replaced where edits says.
func bigText(n int, edits map[int]string) []byte {
	var b strings.Builder
	for i := range n {
		if e, ok := edits[i]; ok {
			b.WriteString(e + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d of a long reference\n", i)
	}
	return []byte(b.String())
}

func aheadTrees() (base, ours, theirs Tree) {
	const n = 5000 // well over AheadSize
	base = Tree{"refs/big.md": {Data: bigText(n, nil)}, "small.md": {Data: []byte("a\nb\nc\n")}}
	// Ours swaps two lines: the lines between need the aligner, and
	// theirs' edit between them merges cleanly only when they get it.
	swap := map[int]string{12: "line 18 of a long reference", 18: "line 12 of a long reference"}
	ours = Tree{"refs/big.md": {Data: bigText(n, swap)}, "small.md": {Data: []byte("A\nb\nc\n")}}
	theirs = Tree{"refs/big.md": {Data: bigText(n, map[int]string{15: "theirs"})}, "small.md": {Data: []byte("a\nb\nC\n")}}
	return base, ours, theirs
}

// TestAheadPlansLargeMerges: Write runs the write once to plan it, in
// which a large merge stands in as diff3.Quick's (here a conflict) and a
// small one is merged at once, then, the large merge computed (BeforeMerges first),
// once more with every merge as MergeTrees alone gives it.
func TestAheadPlansLargeMerges(t *testing.T) {
	base, ours, theirs := aheadTrees()
	want, err := MergeTrees(base, ours, theirs, Options{})
	if err != nil || !want.Clean() {
		t.Fatalf("MergeTrees: %v, %d conflicts", err, len(want.Conflicts))
	}
	a := NewAhead()
	var runs []*TreeResult
	held := 0
	a.BeforeMerges = func() { held++ }
	err = a.Write(context.Background(), func() error {
		res, err := MergeTrees(base, ours, theirs, Options{Ahead: a})
		if err != nil {
			return err
		}
		runs = append(runs, res)
		return a.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || held != 1 {
		t.Fatalf("the write ran %d times, BeforeMerges %d: want 2 and 1", len(runs), held)
	}
	plan := runs[0]
	if got := plan.Tree["small.md"].Data; !bytes.Equal(got, want.Tree["small.md"].Data) {
		t.Errorf("planning merged small.md to %q, want it merged at once: %q", got, want.Tree["small.md"].Data)
	}
	if len(plan.Conflicts) != 1 || plan.Conflicts[0].Path != "refs/big.md" || len(plan.Conflicts[0].Text) != 1 {
		t.Errorf("planning: conflicts %+v, want Quick's conflict of refs/big.md", plan.Conflicts)
	}
	final := runs[1]
	if !final.Clean() || !bytes.Equal(final.Tree["refs/big.md"].Data, want.Tree["refs/big.md"].Data) {
		t.Errorf("the write's second run does not have the merge MergeTrees gives")
	}
}

// TestAheadSmallMergesOnly: a write that merges only small files runs
// once; and a write whose inputs changed between its two runs (another
// writer went first) merges the new ones in place, not the old result.
func TestAheadSmallMergesOnly(t *testing.T) {
	a := NewAhead()
	runs := 0
	err := a.Write(context.Background(), func() error {
		runs++
		if _, err := MergeTrees(Tree{"a.md": {Data: []byte("x\n")}}, Tree{"a.md": {Data: []byte("y\n")}}, Tree{"a.md": {Data: []byte("z\n")}}, Options{Ahead: a}); err != nil {
			return err
		}
		return a.Err()
	})
	if err != nil || runs != 1 {
		t.Fatalf("a write of small merges ran %d times (%v), want once", runs, err)
	}

	base, ours, theirs := aheadTrees()
	moved := Tree{"refs/big.md": {Data: bigText(5000, map[int]string{12: "line 18 of a long reference", 18: "line 12 of a long reference", 2000: "moved"})}, "small.md": ours["small.md"]}
	want, _ := MergeTrees(base, moved, theirs, Options{})
	a = NewAhead()
	var last *TreeResult
	runs = 0
	err = a.Write(context.Background(), func() error {
		o := ours
		if runs++; runs > 1 {
			o = moved
		}
		res, err := MergeTrees(base, o, theirs, Options{Ahead: a})
		if err != nil {
			return err
		}
		last = res
		return a.Err()
	})
	if err != nil || runs != 2 {
		t.Fatalf("ran %d times: %v", runs, err)
	}
	if !bytes.Equal(last.Tree["refs/big.md"].Data, want.Tree["refs/big.md"].Data) {
		t.Error("the second run took the merge of the inputs planned, not of the inputs it read")
	}
	if a.Err() != nil {
		t.Error("a merge asked for outside a plan stays asked for")
	}
}

// TestAheadFirstRunError: a write that fails in its plan fails, without a
// second run, whatever merges it noted.
func TestAheadFirstRunError(t *testing.T) {
	base, ours, theirs := aheadTrees()
	a := NewAhead()
	boom := errors.New("refused")
	runs := 0
	err := a.Write(context.Background(), func() error {
		runs++
		if _, err := MergeTrees(base, ours, theirs, Options{Ahead: a}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) || runs != 1 {
		t.Errorf("Write = %v after %d runs, want the write's error after one", err, runs)
	}
}
