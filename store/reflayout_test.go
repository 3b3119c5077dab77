package store

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// layout1Store makes, with git's plumbing, a tiny store as skillstore
// wrote it before ref layout 2: plugin kit's skill alpha at
// refs/heads/skills/alpha (and as its upstream snapshot), a state commit
// whose tree records the plugin but no layout, and no layout marker.
// withState false leaves the state out: then a candidate at
// refs/heads/candidates/beta, layout 1's shape, is what shows the layout.
func layout1Store(t *testing.T, withState bool) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	s := newSyncStore(t)
	dir := s.Dir()
	if err := os.Remove(filepath.Join(dir, metaDir, layoutMarkerFile)); err != nil {
		t.Fatal(err)
	}
	git := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=Fixture", "GIT_AUTHOR_EMAIL=fixture@example.com",
			"GIT_COMMITTER_NAME=Fixture", "GIT_COMMITTER_EMAIL=fixture@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	blob := git(skillMD("alpha", "upstream"), "hash-object", "-w", "--stdin")
	tree := git("100644 blob "+blob+"\tSKILL.md\n", "mktree")
	v1 := git("", "commit-tree", tree, "-m",
		"alpha v1: mirror of plugin kit\n\nSkill-Version: 1\nSource: plugin:kit\nPlugin: kit\nMerge-Mode: mirror\nUpstream-Path: skills/alpha")
	if !withState {
		git("", "update-ref", "refs/heads/candidates/beta", v1)
		return dir
	}
	git("", "update-ref", "refs/heads/skills/alpha", v1)
	git("", "update-ref", "refs/upstream/kit/alpha", v1)
	record := git(`{"id": "kit", "source": {"kind": "folder", "url": "/up/kit"}, "skills": ["alpha"]}`+"\n", "hash-object", "-w", "--stdin")
	plugins := git("100644 blob "+record+"\tkit.json\n", "mktree")
	state := git("", "commit-tree", git("040000 tree "+plugins+"\tplugins\n", "mktree"), "-m", "plugin add kit")
	git("", "update-ref", StateRef, state)
	return dir
}

// TestLayout1StoreRefused: a store in ref layout 1, with or without state,
// is refused by every read and write (a dry run too) with one error that
// names the layout, the commit that introduced layout 2 and what to do;
// nothing is written, not even the layout marker.
func TestLayout1StoreRefused(t *testing.T) {
	ctx := context.Background()
	for _, withState := range []bool{true, false} {
		dir := layout1Store(t, withState)
		before := gitCmd(t, dir, "for-each-ref")
		s, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for what, err := range map[string]error{
			"list":           s.View(ctx, func(r *Reader) error { _, err := r.List(true); return err }),
			"write":          s.Update(ctx, func(tx *Tx) error { return tx.PutRecord("skills/x", SkillRecord{}) }),
			"dry-run write":  s.DryRun().Update(ctx, func(tx *Tx) error { return tx.PutRecord("skills/x", SkillRecord{}) }),
			"list (dry run)": s.DryRun().View(ctx, func(r *Reader) error { return nil }),
		} {
			var le *LayoutError
			if !errors.As(err, &le) || !errors.Is(err, ErrOldLayout) || le.Layout != 1 {
				t.Fatalf("state %v, %s: %v, want a LayoutError of layout 1", withState, what, err)
			}
			for _, want := range []string{"store " + dir + " uses ref layout 1", "before commit 91c733b (2026-11-23)", "'skillstore upgrade' of " + UpgradeWith, "or re-create it"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("state %v, %s: error %q does not say %q", withState, what, err, want)
				}
			}
		}
		if after := gitCmd(t, dir, "for-each-ref"); after != before {
			t.Errorf("state %v: the refused commands wrote refs:\n%s", withState, after)
		}
		if hasLayoutMarker(dir) {
			t.Errorf("state %v: a layout 1 store got the layout marker", withState)
		}
	}
}

// TestLayoutMarker: init writes the layout marker; a store without it
// (deleted, or an older release's) is checked once and gets it back, but
// not from a dry run.
func TestLayoutMarker(t *testing.T) {
	ctx := context.Background()
	s := newSyncStore(t)
	marker := filepath.Join(s.Dir(), "skillstore", layoutMarkerFile)
	if !hasLayoutMarker(s.Dir()) {
		t.Fatal("init wrote no layout marker")
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DryRun().List(ctx, true); err != nil || hasLayoutMarker(s.Dir()) {
		t.Errorf("a dry run wrote the marker (%v)", err)
	}
	if _, err := s.List(ctx, true); err != nil {
		t.Fatal(err)
	}
	if !hasLayoutMarker(s.Dir()) {
		t.Error("a checked store did not get its marker back")
	}
}
