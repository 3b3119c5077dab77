package gitdb

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefReaderMatchesReadRefs: every ref git writes (packed by git
// pack-refs, with annotated tags' peeled lines, and loose ones that shadow
// packed values) is found by Lookup with the value ReadRefs gives it, and
// names that are not refs are not found.
func TestRefReaderMatchesReadRefs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "--quiet", "--bare")
	tree := git("mktree")
	var commits []string
	for i := 0; i < 5; i++ {
		commits = append(commits, git("commit-tree", "-m", fmt.Sprintf("c%d", i), tree))
	}
	for i := 0; i < 200; i++ {
		git("update-ref", fmt.Sprintf("refs/heads/skills/s%03d", i), commits[i%5])
		if i%7 == 0 {
			git("tag", "-a", "-m", "t", fmt.Sprintf("t%03d", i), commits[i%5])
		}
	}
	git("update-ref", "refs/heads/candidates/a/b", commits[1])
	git("pack-refs", "--all")
	// Loose refs after packing: one new, one shadowing a packed value.
	git("update-ref", "refs/heads/skills/s010", commits[4])
	git("update-ref", "refs/upstream/p/new", commits[2])

	all, err := ReadRefs(dir)
	if err != nil {
		t.Fatal(err)
	}
	rr := NewRefReader(dir)
	for name, want := range all {
		got, ok, err := rr.Lookup(name)
		if err != nil || !ok || got != want {
			t.Errorf("Lookup(%s) = %s, %v, %v; ReadRefs has %s", name, got, ok, err, want)
		}
	}
	for _, name := range []string{"refs/heads/skills/s", "refs/heads/skills/s1000", "refs/heads/skills/s200",
		"refs/heads/candidates/a", "refs/heads/a", "refs/zzz", "refs/heads/skills/../skills/s001", "HEAD", "refs/heads/skills/.x"} {
		if h, ok, err := rr.Lookup(name); ok || err != nil {
			t.Errorf("Lookup(%s) = %s, %v, %v; want not found", name, h, ok, err)
		}
	}
	if names, err := rr.Names("refs/heads/skills/"); err != nil || len(names) != 200 {
		t.Errorf("Names = %d, %v", len(names), err)
	}
}

// TestRefReaderCorrupt: a corrupt ref file fails the lookup of its own
// name with a *CorruptRefError, and does not fail other names.
func TestRefReaderCorrupt(t *testing.T) {
	dir := t.TempDir()
	a := HashObject(BlobObject, []byte("a"))
	if err := ApplyRefUpdates(dir, []RefUpdate{{Name: "refs/heads/skills/good", New: a}}); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "refs", "heads", "skills", "bad")
	if err := os.WriteFile(bad, []byte("not a hash\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rr := NewRefReader(dir)
	var ce *CorruptRefError
	if _, _, err := rr.Lookup("refs/heads/skills/bad"); !errors.As(err, &ce) || ce.Path != bad {
		t.Errorf("corrupt ref: %v", err)
	}
	if h, ok, err := rr.Lookup("refs/heads/skills/good"); err != nil || !ok || h != a {
		t.Errorf("good ref: %s, %v, %v", h, ok, err)
	}
}

// TestSearchSortedLines: the binary search finds every line of a sorted
// packed-refs, whatever comment and peeled lines sit between them, and
// nothing between or beyond them.
func TestSearchSortedLines(t *testing.T) {
	h := strings.Repeat("a", 40)
	var b strings.Builder
	b.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	var names []string
	for i := 0; i < 97; i++ {
		name := fmt.Sprintf("refs/x/%03d", i*2)
		names = append(names, name)
		fmt.Fprintf(&b, "%s %s\n", h, name)
		if i%3 == 0 {
			fmt.Fprintf(&b, "^%s\n", h)
		}
	}
	data := []byte(b.String())
	for _, n := range names {
		if line := searchSortedLines(data, n); string(line) != h+" "+n {
			t.Errorf("%s: got %q", n, line)
		}
	}
	for i := -1; i < 196; i += 2 {
		n := fmt.Sprintf("refs/x/%03d", i)
		if line := searchSortedLines(data, n); line != nil {
			t.Errorf("%s: found %q", n, line)
		}
	}
	if line := searchSortedLines(data[:len(data)-1], names[len(names)-1]); line == nil {
		t.Error("last line without a newline not found")
	}
}
