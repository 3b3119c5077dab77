package npxhash

import (
	"slices"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// The digests below were computed by Node 20 (ICU 78) running the
// algorithm the package doc describes over the same files on disk: the
// order is collation order, folders .git and node_modules and the
// symbolic link are left out.
func TestSumMatchesNode(t *testing.T) {
	reg := func(p, data string) skillfs.File {
		return skillfs.File{Path: p, Mode: skillfs.Regular, Data: []byte(data)}
	}
	files := []skillfs.File{
		reg(".git/config", "[core]\n"),
		reg("LICENSE.txt", "MIT\n"),
		reg("SKILL.md", "---\nname: pdf\ndescription: Reads PDFs.\n---\nRead it.\n"),
		reg("assets/Logo.png", "\x89PNG\x00\x01"),
		reg("assets/logo-small.png", "x"),
		{Path: "link.md", Mode: skillfs.Symlink, Data: []byte("SKILL.md")},
		reg("node_modules/x/index.js", "module\n"),
		reg("references/api.md", "API\n"),
		{Path: "scripts/run.sh", Mode: skillfs.Executable, Data: []byte("#!/bin/sh\necho hi\n")},
	}
	if got, want := Sum(files), "f6129869d4a8d465c8adb92e64aba596c4d8b6d054b5dd19909ac861ad70d3e3"; got != want {
		t.Errorf("Sum = %s, want %s (Node's)", got, want)
	}
	one := []skillfs.File{reg("SKILL.md", "---\nname: a\ndescription: d\n---\nbody\n")}
	if got, want := Sum(one), "245382f39e113d062a1bbc2047204c1dc29212f19abadd9730c258529ca5d276"; got != want {
		t.Errorf("Sum of one file = %s, want %s", got, want)
	}
	if !Valid(Sum(one)) || Valid("245382F39E113D062A1BBC2047204C1DC29212F19ABADD9730C258529CA5D276") || Valid("abc") {
		t.Error("Valid is wrong")
	}
}

// Node sorts these (a sample of 4,000 random ASCII paths checked the
// same way) in this order with localeCompare.
func TestCompareIsLocaleOrder(t *testing.T) {
	want := []string{"_x", "-x", ",x", ".md", "/a", "0", "9z", "a b", "a_b", "a-b", "a.b", "a.md", "A.md", "a/b",
		"ab", "aB", "Ab", "assets/logo-small.png", "assets/Logo.png", "b", "B", "LICENSE.txt", "references/api.md", "scripts/run.sh", "SKILL.md", "xa", "xA", "Xa"}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortFunc(got, Compare)
	if !slices.Equal(got, want) {
		t.Errorf("sorted:\n got %q\nwant %q", got, want)
	}
	if Compare("a", "a") != 0 || !Less("a", "A") || Less("A", "a") {
		t.Error("Compare on equal or case-only strings is wrong")
	}
}
