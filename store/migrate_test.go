package store

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/gitdb"
)

// MigrateTestHooks are what the upgrade tests ask of the packages that
// import store (the candidates, a skill's owner, a sync), which a test of
// package store cannot import: migrate_hooks_test.go, a test file of the
// external test package, fills them in.
var MigrateTestHooks struct {
	// Candidates are the pending candidates, "SKILL MODE" each.
	Candidates func(r *Reader) ([]string, error)
	SkillOwner func(r *Reader, name string) (string, error)
	Sync       func(ctx context.Context, s *Store) error
}

// layout1Store unpacks testdata/layout1/store-v1.tar.gz, a store made by
// the release before namespaced identity (see make-store.sh beside it), and
// returns its directory.
func layout1Store(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	tarball, err := filepath.Abs(filepath.Join("..", "testdata", "layout1", "store-v1.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-xzf", tarball, "-C", root).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	return filepath.Join(root, "store")
}

// refList is every ref of the store at dir, as git lists them.
func refList(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "for-each-ref", "--format=%(refname)").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}

// layout2Refs are the refs of the fixture once upgraded.
var layout2Refs = []string{
	"refs/heads/candidates/plugins/kit/beta",
	"refs/heads/candidates/plugins/kit/gamma",
	"refs/heads/candidates/plugins/kit/skills",
	"refs/heads/plugins/kit/alpha",
	"refs/heads/plugins/kit/beta",
	"refs/heads/plugins/kit/gamma",
	"refs/heads/plugins/kit/skills",
	"refs/heads/plugins/tools/hammer",
	"refs/heads/skills/notes",
	"refs/heads/skills/old",
	"refs/heads/skills/saw",
	"refs/skillstore/state",
	"refs/skillstore/superseded/plugins/kit/gamma/a99873ef5cb122ccf962567942148d4b484eea00",
	"refs/upstream/kit/alpha",
	"refs/upstream/kit/beta",
	"refs/upstream/kit/gamma",
	"refs/upstream/kit/skills",
	"refs/upstream/tools/hammer",
	"refs/upstream/tools/saw",
}

// checkUpgraded checks what the fixture holds after its upgrade: the
// layout 2 refs, plugin skills under their qualified names with their
// history and records, candidates, and a store git fsck --strict and
// verify accept.
func checkUpgraded(t *testing.T, dir string) {
	t.Helper()
	if got := refList(t, dir); !slices.Equal(got, layout2Refs) {
		t.Fatalf("refs after the upgrade:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(layout2Refs, "\n"))
	}
	checkStore(t, dir)
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(context.Background(), func(r *Reader) error {
		if v, err := r.layoutVersion(); err != nil || v != LayoutVersion {
			t.Errorf("layout %d (%v), want %d", v, err, LayoutVersion)
		}
		infos, err := r.List(true)
		if err != nil {
			return err
		}
		var got []string
		for _, in := range infos {
			got = append(got, in.Name+" "+string(in.Status))
		}
		want := []string{"kit:alpha disabled", "kit:beta active", "kit:gamma active", "kit:skills active", "notes active", "old removed", "saw active", "tools:hammer active"}
		if !slices.Equal(got, want) {
			t.Errorf("list --all: %v, want %v", got, want)
		}
		if rec, err := r.SkillRecord("kit:alpha"); err != nil || rec.Reason != "fixture: disabled" {
			t.Errorf("kit:alpha's record %+v (%v), want the disabled reason kept", rec, err)
		}
		if v, err := r.Head("kit:gamma"); err != nil || v.Number != 1 || v.Plugin != "kit" {
			t.Errorf("kit:gamma head %+v (%v), want v1 of plugin kit", v, err)
		}
		if vs, err := r.Versions("kit:beta"); err != nil || len(vs) != 2 {
			t.Errorf("kit:beta history: %d versions (%v), want 2", len(vs), err)
		}
		cands, err := MigrateTestHooks.Candidates(r)
		if err != nil {
			return err
		}
		if !slices.Equal(cands, []string{"kit:beta three-way", "kit:gamma fast-forward", "kit:skills three-way"}) {
			t.Errorf("candidates %v", cands)
		}
		if owner, err := MigrateTestHooks.SkillOwner(r, "kit:beta"); err != nil || owner != "plugin:kit" {
			t.Errorf("owner of kit:beta %q (%v)", owner, err)
		}
		if owner, _ := MigrateTestHooks.SkillOwner(r, "saw"); owner != SourceManaged {
			t.Errorf("adopted saw is owned by %q, want managed", owner)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestUpgradeLayout1Store upgrades a store made by the previous release on
// the first read, and the explicit upgrade then has nothing to do.
func TestUpgradeLayout1Store(t *testing.T) {
	dir := layout1Store(t)
	ctx := context.Background()
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A dry run lists the moves and writes nothing.
	rep, err := s.DryRun().Upgrade(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Upgraded || rep.From != 1 || len(rep.Refs) != 9 || len(rep.Records) != 1 {
		t.Errorf("dry run: %+v, want 9 refs and 1 record moved from layout 1", rep)
	}
	if got := refList(t, dir); !slices.Contains(got, "refs/heads/skills/beta") {
		t.Fatalf("the dry run moved refs: %v", got)
	}
	// A dry-run read sees the store as upgraded, and writes nothing.
	err = s.DryRun().View(ctx, func(r *Reader) error {
		if _, err := r.Head("kit:beta"); err != nil {
			t.Errorf("dry-run view of a layout 1 store: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := refList(t, dir); !slices.Contains(got, "refs/heads/skills/beta") {
		t.Fatalf("the dry-run view moved refs: %v", got)
	}
	// Any command upgrades first: here a read.
	if _, err := s.List(ctx, true); err != nil {
		t.Fatal(err)
	}
	checkUpgraded(t, dir)
	rep, err = s.Upgrade(ctx)
	if err != nil || rep.Upgraded {
		t.Errorf("second upgrade: %+v (%v), want nothing to do", rep, err)
	}
	// Writes go on in layout 2: a sync of the upgraded store works.
	if err := MigrateTestHooks.Sync(ctx, s); err != nil {
		t.Fatal(err)
	}
}

// upgradeUpdates computes the ref updates upgrading the store at dir
// writes, in order, with their objects (the state commit) already stored.
func upgradeUpdates(t *testing.T, dir string) []gitdb.RefUpdate {
	t.Helper()
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.newReader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.resetStorage()
	defer r.refs.Close()
	tx := &Tx{Reader: r, pending: &gitdb.Buffer{}, newRefs: map[string]Hash{}}
	r.tx = tx
	if _, err := tx.upgradeLayout(); err != nil {
		t.Fatal(err)
	}
	if err := tx.commitState(); err != nil {
		t.Fatal(err)
	}
	if err := tx.pending.Flush(dir, tx.hasStored); err != nil {
		t.Fatal(err)
	}
	var updates []gitdb.RefUpdate
	for _, name := range tx.refOrder {
		old, _ := tx.storedRef(name)
		if old != tx.newRefs[name] {
			updates = append(updates, gitdb.RefUpdate{Name: name, Old: old, New: tx.newRefs[name]})
		}
	}
	return updates
}

// TestUpgradeInterruptedAtEveryStep: the upgrade writes its refs with
// gitdb.SwitchRefs (packed-refs rewritten, then the moved refs' loose files
// removed one by one, then the state ref written). A kill after any of
// these steps leaves the state in layout 1, with some loose layout 1 refs
// still there beside the new packed ones; this rebuilds each such moment
// (with the store's refs loose, and packed as after gc) and checks that the
// next command completes the upgrade to the same store.
func TestUpgradeInterruptedAtEveryStep(t *testing.T) {
	for _, packed := range []bool{false, true} {
		n := len(upgradeUpdates(t, layout1Store(t)))
		for k := 0; k < n; k++ {
			dir := layout1Store(t)
			if packed {
				gitCmd(t, dir, "pack-refs", "--all")
			}
			updates := upgradeUpdates(t, dir)
			loose := map[string][]byte{}
			for _, u := range updates {
				if data, err := os.ReadFile(filepath.Join(dir, u.Name)); err == nil {
					loose[u.Name] = data
				}
			}
			var others []gitdb.RefUpdate
			var state gitdb.RefUpdate
			for _, u := range updates {
				if u.Name == StateRef {
					state = u
				} else {
					others = append(others, u)
				}
			}
			if err := gitdb.SwitchRefs(dir, updates, StateRef); err != nil {
				t.Fatal(err)
			}
			// Back to the moment after k loose files were removed, before
			// the state ref was written.
			for _, u := range others[min(k, len(others)):] {
				if data, ok := loose[u.Name]; ok {
					writeFile(t, filepath.Join(dir, u.Name), string(data))
				}
			}
			writeFile(t, filepath.Join(dir, StateRef), state.Old.String()+"\n")
			s, err := Open(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			err = s.view(context.Background(), func(r *Reader) error {
				if v, err := r.layoutVersion(); err != nil || v != 1 {
					t.Errorf("packed %v, k=%d: layout %d (%v) before the state moved, want 1", packed, k, v, err)
				}
				return nil
			}, false)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Upgrade(context.Background()); err != nil {
				t.Fatalf("packed %v: upgrade after %d of %d loose files removed: %v", packed, k, len(others), err)
			}
			checkUpgraded(t, dir)
		}
	}
}

// TestUpgradeKilled kills real processes upgrading the layout 1 fixture at
// random moments of an uninterrupted upgrade's run time; each store is then
// untouched (the previous release's refs), upgraded, or in between, and
// the next run always completes the upgrade to the same store.
func TestUpgradeKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	template := layout1Store(t)
	before := refList(t, template)
	start := time.Now()
	ref := copyStore(t, template)
	if err := upgradeProcess(t, ref).Wait(); err != nil {
		t.Fatalf("uninterrupted upgrade: %v", err)
	}
	window := time.Since(start)
	checkUpgraded(t, ref)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("seed %d, kill window %v", seed, window)
	outcomes := map[string]int{}
	for i := range 20 {
		dir := copyStore(t, template)
		cmd := upgradeProcess(t, dir)
		time.Sleep(time.Duration(rng.Int64N(int64(window))))
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		switch got := refList(t, dir); {
		case slices.Equal(got, before):
			outcomes["untouched"]++
		case slices.Equal(got, layout2Refs):
			outcomes["upgraded"]++
		default:
			outcomes["partial"]++
		}
		s, err := Open(context.Background(), dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Upgrade(context.Background()); err != nil {
			t.Fatalf("run %d (seed %d): upgrade after the kill: %v", i, seed, err)
		}
		checkUpgraded(t, dir)
	}
	t.Logf("outcomes of the killed upgrades: %v", outcomes)
}

const upgradeHelperEnv = "SKILLSTORE_UPGRADE_HELPER"

func TestUpgradeHelperProcess(t *testing.T) {
	dir := os.Getenv(upgradeHelperEnv)
	if dir == "" {
		t.Skip("helper process for TestUpgradeKilled")
	}
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		os.Exit(1)
	}
	if _, err := s.Upgrade(context.Background()); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func upgradeProcess(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestUpgradeHelperProcess$")
	cmd.Env = append(os.Environ(), upgradeHelperEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestLayoutMarker: init writes the layout marker; a store without it
// (deleted, or an older release's) is checked once and gets it back; the
// upgrade writes it only after the refs and state.
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
	if _, err := s.List(ctx, true); err != nil {
		t.Fatal(err)
	}
	if !hasLayoutMarker(s.Dir()) {
		t.Error("a checked store did not get its marker back")
	}
	dir := layout1Store(t)
	old, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if hasLayoutMarker(dir) {
		t.Fatal("the layout 1 fixture has a marker")
	}
	if _, err := old.DryRun().Upgrade(ctx); err != nil || hasLayoutMarker(dir) {
		t.Errorf("a dry-run upgrade wrote the marker (%v)", err)
	}
	if _, err := old.Upgrade(ctx); err != nil || !hasLayoutMarker(dir) {
		t.Errorf("the upgrade wrote no marker (%v)", err)
	}
}
