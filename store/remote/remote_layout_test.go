package remote

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
)

// layout1Remote is a bare repository holding the refs of the layout 1
// fixture (a store made by the release before namespaced identity),
// pushed there with plain git as that release's push would have.
func layout1Remote(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	tarball, err := filepath.Abs(filepath.Join("..", "..", "testdata", "layout1", "store-v1.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-xzf", tarball, "-C", root).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	central := filepath.Join(root, "central.git")
	remoteGit(t, "", "init", "--quiet", "--bare", central)
	remoteGit(t, filepath.Join(root, "store"), "push", "--quiet", central,
		"refs/heads/*:refs/heads/*", "refs/upstream/*:refs/upstream/*", "refs/skillstore/*:refs/skillstore/*")
	return central
}

// TestPullRefusesLayout1Remote: pull and clone refuse a remote still in
// ref layout 1, with the error naming its layout and nothing written,
// rather than reading a plugin's skill as a managed one.
func TestPullRefusesLayout1Remote(t *testing.T) {
	ctx := context.Background()
	central := layout1Remote(t)
	s := newActorStore(t, "alice")
	mustAddRemote(t, s, "origin", "file://"+central)
	before := refValues(t, s.Dir(), "refs/")
	_, err := Pull(ctx, s, PullOptions{})
	var le *RemoteLayoutError
	if !errors.As(err, &le) || le.Layout != 1 || le.Remote != "origin" || len(le.Refs) == 0 {
		t.Fatalf("pull from a layout 1 remote = %v, want a RemoteLayoutError naming its refs", err)
	}
	if after := refValues(t, s.Dir(), "refs/"); after != before {
		t.Errorf("the refused pull wrote refs:\n%s", after)
	}
	// Without candidates to show it, the state's missing layout record does.
	remoteGit(t, central, "update-ref", "-d", "refs/heads/candidates/beta")
	remoteGit(t, central, "update-ref", "-d", "refs/heads/candidates/gamma")
	remoteGit(t, central, "update-ref", "-d", "refs/heads/candidates/skills")
	remoteGit(t, central, "update-ref", "-d", "refs/skillstore/superseded/gamma/a99873ef5cb122ccf962567942148d4b484eea00")
	_, _, err = Clone(ctx, "file://"+central, filepath.Join(t.TempDir(), "bob"), store.Options{}, CloneOptions{})
	if !errors.As(err, &le) || le.Layout != 1 {
		t.Fatalf("clone of a layout 1 remote = %v, want a RemoteLayoutError", err)
	}
}

// TestPushMovesLayout1Remote: the documented fix. The store that pushed to
// a layout 1 remote is upgraded by this release; its push moves the
// remote's refs to layout 2 (deleting the layout 1 names it moved), and a
// clone of the remote then holds the plugin skills under their qualified
// names, verified.
func TestPushMovesLayout1Remote(t *testing.T) {
	ctx := context.Background()
	central := layout1Remote(t)
	// The store that made the remote: the fixture, upgraded by this release.
	root := t.TempDir()
	tarball, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "layout1", "store-v1.tar.gz"))
	if out, err := exec.Command("tar", "-xzf", tarball, "-C", root).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	s, err := store.Open(ctx, filepath.Join(root, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := s.Upgrade(ctx); err != nil || !rep.Upgraded {
		t.Fatalf("upgrade: %+v, %v", rep, err)
	}
	mustAddRemote(t, s, "origin", "file://"+central)
	mustPush(t, s, "")
	got := refValues(t, central, "refs/heads/")
	for _, gone := range []string{"refs/heads/skills/beta ", "refs/heads/candidates/beta ", "refs/heads/candidates/skills "} {
		if containsLine(got, gone) {
			t.Errorf("the remote still holds %s after the push:\n%s", gone, got)
		}
	}
	bob, _, err := Clone(ctx, "file://"+central, filepath.Join(t.TempDir(), "bob"), store.Options{}, CloneOptions{})
	if err != nil {
		t.Fatalf("clone after the push: %v", err)
	}
	err = bob.View(ctx, func(r *store.Reader) error {
		for _, name := range []string{"kit:alpha", "kit:beta", "tools:hammer", "notes", "saw"} {
			if _, err := r.Head(name); err != nil {
				t.Errorf("clone: %v", err)
			}
		}
		if _, err := r.Head("beta"); err == nil {
			t.Error("clone holds a managed beta: a layout 1 leftover")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkStore(t, bob.Dir())
}

func containsLine(text, prefix string) bool {
	for _, l := range strings.Split(text, "\n") {
		if len(l) >= len(prefix) && l[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}
