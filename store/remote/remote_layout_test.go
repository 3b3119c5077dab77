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

// layout1Remote is a bare repository holding refs as a store in ref
// layout 1 pushed them, made by hand with git's plumbing: plugin kit's
// skill alpha at refs/heads/skills/alpha (layout 2 has it at
// refs/heads/plugins/kit/alpha) and as its upstream snapshot, a candidate at
// refs/heads/candidates/beta and a superseded one at
// refs/skillstore/superseded/beta/COMMIT (layout 1's shapes), and a state
// commit whose tree records no layout (layout 1's state).
func layout1Remote(t *testing.T) (dir, superseded string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "central.git")
	remoteGit(t, "", "init", "--quiet", "--bare", dir)
	git := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, gitEnv(), strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	skill := func(name, line string) string {
		blob := git("---\nname: "+name+"\ndescription: The "+name+" skill.\n---\n"+line+"\n", "hash-object", "-w", "--stdin")
		return git("100644 blob "+blob+"\tSKILL.md\n", "mktree")
	}
	// The first version of a plugin's skill mirrors it: one commit is both
	// the version and the upstream snapshot.
	v1 := git("", "commit-tree", skill("alpha", "upstream"), "-m",
		"alpha v1: mirror of plugin kit\n\nSkill-Version: 1\nSource: plugin:kit\nPlugin: kit\nMerge-Mode: mirror\nUpstream-Path: skills/alpha")
	git("", "update-ref", "refs/heads/skills/alpha", v1)
	git("", "update-ref", "refs/upstream/kit/alpha", v1)
	old := git("", "commit-tree", skill("beta", "older"), "-m", "candidate beta")
	cand := git("", "commit-tree", skill("beta", "newer"), "-m", "candidate beta")
	git("", "update-ref", "refs/heads/candidates/beta", cand)
	superseded = "refs/skillstore/superseded/beta/" + old
	git("", "update-ref", superseded, old)
	record := git(`{"id": "kit", "source": {"kind": "folder", "url": "/up/kit"}, "skills": ["alpha", "beta"]}`+"\n", "hash-object", "-w", "--stdin")
	plugins := git("100644 blob "+record+"\tkit.json\n", "mktree")
	state := git("", "commit-tree", git("040000 tree "+plugins+"\tplugins\n", "mktree"), "-m", "plugin add kit")
	git("", "update-ref", store.StateRef, state)
	return dir, superseded
}

// TestPullRefusesLayout1Remote: pull and clone refuse a remote still in
// ref layout 1, with the error naming its layout and nothing written,
// rather than reading a plugin's skill as a managed one.
func TestPullRefusesLayout1Remote(t *testing.T) {
	ctx := context.Background()
	central, superseded := layout1Remote(t)
	s := newActorStore(t, "alice")
	mustAddRemote(t, s, "origin", "file://"+central)
	before := refValues(t, s.Dir(), "refs/")
	_, err := Pull(ctx, s, PullOptions{})
	var le *RemoteLayoutError
	if !errors.As(err, &le) || le.Layout != 1 || le.Remote != "origin" || len(le.Refs) == 0 {
		t.Fatalf("pull from a layout 1 remote = %v, want a RemoteLayoutError naming its refs", err)
	}
	if !strings.Contains(le.Hint(), store.UpgradeWith) {
		t.Errorf("hint %q does not name the builds that can move the remote", le.Hint())
	}
	if after := refValues(t, s.Dir(), "refs/"); after != before {
		t.Errorf("the refused pull wrote refs:\n%s", after)
	}
	// Without candidates to show it, the state's missing layout record does.
	remoteGit(t, central, "update-ref", "-d", "refs/heads/candidates/beta")
	remoteGit(t, central, "update-ref", "-d", superseded)
	_, _, err = Clone(ctx, "file://"+central, filepath.Join(t.TempDir(), "bob"), store.Options{}, CloneOptions{})
	if !errors.As(err, &le) || le.Layout != 1 {
		t.Fatalf("clone of a layout 1 remote = %v, want a RemoteLayoutError", err)
	}
}
