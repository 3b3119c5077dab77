package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpgradeCommand runs the real binary on a store made by the release
// before namespaced identity (testdata/layout1): --dry-run lists the moves
// and writes nothing, a dry run of a write works on the store as upgraded
// and writes nothing either,
// upgrade moves the refs, and the store then verifies, passes git fsck
// --strict and lists plugin skills by their qualified names.
func TestUpgradeCommand(t *testing.T) {
	root := t.TempDir()
	tarball, err := filepath.Abs(filepath.Join("..", "..", "testdata", "layout1", "store-v1.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-xzf", tarball, "-C", root).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	dir := filepath.Join(root, "store")
	refs := func() string { return git(t, dir, "for-each-ref", "--format=%(refname)") }
	before := refs()

	out := mustRun(t, dir, "upgrade", "--dry-run")
	for _, want := range []string{
		"  refs/heads/skills/beta -> refs/heads/plugins/kit/beta\n",
		"  refs/heads/candidates/skills -> refs/heads/candidates/plugins/kit/skills\n",
		"  record skills/alpha -> plugin-skills/kit/alpha\n",
		"would upgrade the store from layout 1 to 2: 9 refs, 1 record\n",
		"dry run: nothing was written\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("upgrade --dry-run lacks %q:\n%s", want, out)
		}
	}
	// A dry run of a write sees the store as upgraded, and writes neither.
	if out := mustRun(t, dir, "rollback", "--dry-run", "kit:beta", "v1"); !strings.Contains(out, "kit:beta@v3") {
		t.Errorf("rollback --dry-run kit:beta on a layout 1 store:\n%s", out)
	}
	if refs() != before {
		t.Fatal("a dry run wrote refs")
	}

	out = mustRun(t, dir, "upgrade", "--json")
	if !strings.Contains(out, `"upgraded": true`) || !strings.Contains(out, `"from": 1`) {
		t.Errorf("upgrade --json:\n%s", out)
	}
	if out := mustRun(t, dir, "upgrade"); !strings.Contains(out, "in layout 2 already: nothing to do") {
		t.Errorf("second upgrade:\n%s", out)
	}
	mustRun(t, dir, "verify")
	git(t, dir, "fsck", "--strict", "--no-dangling")
	list := mustRun(t, dir, "list", "--all")
	for _, want := range []string{"kit:alpha", "kit:beta", "tools:hammer", "notes", "saw"} {
		if !strings.Contains(list, want) {
			t.Errorf("list --all lacks %s:\n%s", want, list)
		}
	}
}
