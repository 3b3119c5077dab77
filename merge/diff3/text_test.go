package diff3

import (
	"bytes"
	"strings"
	"testing"
)

// TestTextResultOwnsItsBytes: Text reads its inputs without copying them
// (view), so its result must not share memory with them. Overwriting the
// inputs after the merge must leave the merged text and every conflict
// section as they were, for clean merges, conflicts in every style, and the
// shortcuts taken when a side is unchanged.
func TestTextResultOwnsItsBytes(t *testing.T) {
	cases := []struct{ name, base, ours, theirs string }{
		{"conflict", "a\nb\nc\n", "a\nours\nc\n", "a\ntheirs\nc\n"},
		{"one-line sides", "b\n", "ours\n", "theirs\n"},
		{"clean", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n"},
		{"ours unchanged", "a\nb\n", "a\nb\n", "a\nB\n"},
		{"theirs unchanged", "a\nb\n", "a\nB\n", "a\nb\n"},
	}
	for _, c := range cases {
		for _, style := range []Style{Diff3, Plain, ZDiff3} {
			base, ours, theirs := []byte(c.base), []byte(c.ours), []byte(c.theirs)
			got, err := Merge(base, ours, theirs, Options{Style: style})
			if err != nil {
				t.Fatal(err)
			}
			merged := string(got.Merged)
			var sections []string
			for _, k := range got.Conflicts {
				sections = append(sections, k.Ours.Text, k.Base.Text, k.Theirs.Text)
			}
			snapshot := make([]string, len(sections))
			for i, s := range sections {
				snapshot[i] = strings.Clone(s)
			}
			for _, in := range [][]byte{base, ours, theirs} {
				copy(in, bytes.Repeat([]byte{'#'}, len(in)))
			}
			if string(got.Merged) != merged {
				t.Errorf("%s, style %d: the merged text changed with the inputs: %q", c.name, style, got.Merged)
			}
			for i, s := range sections {
				if s != snapshot[i] {
					t.Errorf("%s, style %d: conflict section %d changed with the inputs: %q", c.name, style, i, s)
				}
			}
		}
	}
}
