package gitdb

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestRefChildren: the children Children finds by seeking through a sorted
// packed-refs and listing loose folders are those of every ref ReadRefs
// reads, for prefixes with packed, loose, mixed and no refs, and the same
// again once every ref was read.
func TestRefChildren(t *testing.T) {
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
	c := git("commit-tree", "-m", "c", git("mktree"))
	var updates []string
	for _, p := range []string{"a", "a-b", "b", "kit", "kit0", "z"} {
		for i := 0; i < 40; i++ {
			updates = append(updates, fmt.Sprintf("update refs/heads/plugins/%s/s%02d %s\n", p, i, c))
		}
	}
	for i := 0; i < 100; i++ {
		updates = append(updates, fmt.Sprintf("update refs/heads/skills/m%03d %s\n", i, c))
	}
	updates = append(updates, "update refs/heads/pluginsx/q/one "+c+"\n", "update refs/heads/plugin/r/one "+c+"\n")
	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(strings.Join(updates, ""))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("update-ref: %v\n%s", err, out)
	}
	git("tag", "-a", "-m", "t", "t1", c) // a peeled line in packed-refs
	git("pack-refs", "--all")
	git("update-ref", "refs/heads/plugins/loose/one", c)
	git("update-ref", "refs/heads/plugins/kit/s99", c)
	git("update-ref", "refs/upstream/u/one", c)

	all, err := ReadRefs(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := func(prefix string) []string {
		seen := map[string]bool{}
		for name := range all {
			if child, ok := childOf(name, prefix); ok {
				seen[child] = true
			}
		}
		return sortedKeys(seen)
	}
	prefixes := []string{"refs/heads/plugins/", "refs/heads/", "refs/upstream/", "refs/heads/plugins/kit/", "refs/nothing/", "refs/"}
	for _, prefix := range prefixes {
		got, err := NewRefReader(dir).Children(prefix)
		if err != nil || !slices.Equal(got, want(prefix)) {
			t.Errorf("Children(%s) = %v, %v; want %v", prefix, got, err, want(prefix))
		}
		got, err = NewRefReaderOf(dir, all).Children(prefix)
		if err != nil || !slices.Equal(got, want(prefix)) {
			t.Errorf("read whole: Children(%s) = %v, %v; want %v", prefix, got, err, want(prefix))
		}
	}
	wantWith := func(prefix, leaf string) []string {
		seen := map[string]bool{}
		for name := range all {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				if child, l, ok := strings.Cut(rest, "/"); ok && l == leaf {
					seen[child] = true
				}
			}
		}
		return sortedKeys(seen)
	}
	for _, leaf := range []string{"s00", "s39", "s99", "one", "nope"} {
		prefix := "refs/heads/plugins/"
		got, err := NewRefReader(dir).ChildrenWith(prefix, leaf)
		if err != nil || !slices.Equal(got, wantWith(prefix, leaf)) {
			t.Errorf("ChildrenWith(%s, %s) = %v, %v; want %v", prefix, leaf, got, err, wantWith(prefix, leaf))
		}
		got, err = NewRefReaderOf(dir, all).ChildrenWith(prefix, leaf)
		if err != nil || !slices.Equal(got, wantWith(prefix, leaf)) {
			t.Errorf("read whole: ChildrenWith(%s, %s) = %v, %v", prefix, leaf, got, err)
		}
	}
	if got, _ := NewRefReader(dir).ChildrenWith("refs/heads/plugins/", "s99"); !slices.Equal(got, []string{"kit"}) {
		t.Errorf("fixture: s99 (loose, beside packed kit refs) in %v", got)
	}
	if got := want("refs/heads/plugins/"); !slices.Equal(got, []string{"a", "a-b", "b", "kit", "kit0", "loose", "z"}) {
		t.Errorf("fixture: plugins %v", got)
	}
	if _, err := NewRefReader(dir).Children("refs/heads"); err == nil {
		t.Error("a prefix without a trailing / was accepted")
	}
}

// TestSeekSortedLines: the first name at or after each key, over every
// key between and around the names of a sorted packed-refs.
func TestSeekSortedLines(t *testing.T) {
	names := []string{"refs/a", "refs/a/b", "refs/b", "refs/c/d", "refs/c0"}
	var b strings.Builder
	b.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	for i, n := range names {
		fmt.Fprintf(&b, "%040d %s\n", i, n)
		if i == 2 {
			fmt.Fprintf(&b, "^%040d\n", 9)
		}
	}
	data := []byte(b.String())
	keys := []string{"", "refs/", "refs/a", "refs/a/", "refs/a/b", "refs/a0", "refs/c/", "refs/c/e", "refs/c0", "refs/d"}
	for _, k := range keys {
		var want string
		for _, n := range names {
			if n >= k {
				want = n
				break
			}
		}
		got := string(refLineName(seekSortedLines(data, k)))
		if got != want {
			t.Errorf("seek(%q) = %q, want %q", k, got, want)
		}
	}
}
