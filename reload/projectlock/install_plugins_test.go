package projectlock

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// gitIn runs git in dir and returns its trimmed output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitSkills writes one SKILL.md per name (its body says v) into the
// repository at dir and commits them.
func commitSkills(t *testing.T, dir, v string, names ...string) string {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(dir, "skills", n, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		md := "---\nname: " + n + "\ndescription: The " + n + " skill.\n---\n" + v + "\n"
		if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", v)
	return gitIn(t, dir, "rev-parse", "HEAD")
}

// TestFrozenInstallAddsEveryPlugin: a frozen install of a lock naming
// three git plugins the store lacks, one of whose refs moved since the
// lock, adds all three at their locked commits, each following the
// lock's ref again and exported to this project only, reports the move,
// and writes the three plugins' refs in one transaction (one state
// record for them all, where a transaction per step wrote two per
// plugin).
func TestFrozenInstallAddsEveryPlugin(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	l := &Lock{}
	tgt := Target{Name: "app-claude", Dir: ".claude/skills"}
	for p := range 3 {
		dir := filepath.Join(base, fmt.Sprintf("up%d", p))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		gitIn(t, dir, "init", "-q", "-b", "main")
		commit := commitSkills(t, dir, "v1", "a", "b")
		id := fmt.Sprintf("p%d", p)
		l.Plugins = append(l.Plugins, Plugin{ID: id, Kind: "git", URL: dir, Ref: "main", Commit: commit})
		for _, n := range []string{"a", "b"} {
			l.Skills = append(l.Skills, Skill{Name: id + ":" + n, Tree: gitIn(t, dir, "rev-parse", "HEAD:skills/"+n)})
			tgt.Skills = append(tgt.Skills, id+":"+n)
		}
	}
	l.Targets = []Target{tgt}
	project := writeLock(t, l)
	commitSkills(t, filepath.Join(base, "up1"), "v2", "a") // upstream moves on

	s := newStore(t, filepath.Join(t.TempDir(), "bob"))
	stateRecords := func() int {
		var n int
		s.View(ctx, func(r *store.Reader) error {
			for h, ok := r.Ref(store.StateRef); ok && !h.IsZero(); n++ {
				c, err := r.Commit(h)
				if err != nil || len(c.Parents) == 0 {
					break
				}
				h = c.Parents[0]
			}
			return nil
		})
		return n
	}
	before := stateRecords()
	rep, err := Install(ctx, s, InstallOptions{Project: project, Frozen: true, AllowLocal: []string{base}})
	if err != nil || rep.Failed() {
		t.Fatalf("Install = %+v, %v", rep, err)
	}
	for i, res := range rep.Plugins {
		if !res.Added || !res.ProjectOnly || (res.Moved != "") != (i == 1) {
			t.Errorf("plugin %s: %+v; want added, project-only, moved only for p1", res.ID, res)
		}
	}
	var only map[string][]string
	err = s.View(ctx, func(r *store.Reader) error {
		ps, err := plugins.List(r)
		if err != nil {
			return err
		}
		if len(ps) != 3 {
			t.Errorf("%d plugins after install; want 3", len(ps))
		}
		for _, p := range ps {
			if p.Source.Ref != "main" {
				t.Errorf("plugin %s follows %q; want main again", p.ID, p.Source.Ref)
			}
		}
		only, err = plugins.ProjectOnly(r)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, lp := range l.Plugins {
		if len(only[lp.ID]) != 1 || only[lp.ID][0] != project {
			t.Errorf("plugin %s is exported to %v; want this project's targets only", lp.ID, only[lp.ID])
		}
	}
	for _, name := range tgt.Skills {
		folder := strings.ReplaceAll(name, ":", "-")
		if _, err := os.Stat(filepath.Join(project, ".claude", "skills", folder, "SKILL.md")); err != nil {
			if _, err2 := os.Stat(filepath.Join(project, ".claude", "skills", strings.SplitN(name, ":", 2)[1], "SKILL.md")); err2 != nil {
				t.Errorf("%s not installed: %v", name, err)
			}
		}
	}
	if got := stateRecords() - before; got >= len(l.Plugins) {
		t.Errorf("the install wrote %d state records; want fewer than one per plugin", got)
	}
}

// gitLock makes n git plugins of three skills each under base, named
// prefix0, prefix1…, and a lock of all their skills for one target,
// prefix-claude.
func gitLock(t *testing.T, base, prefix string, n int) *Lock {
	t.Helper()
	l := &Lock{}
	tgt := Target{Name: prefix + "-claude", Dir: ".claude/skills"}
	for p := range n {
		dir := filepath.Join(base, fmt.Sprintf("%s%d", prefix, p))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		gitIn(t, dir, "init", "-q", "-b", "main")
		commit := commitSkills(t, dir, fmt.Sprintf("plugin %s%d", prefix, p), "a", "b", "c")
		id := fmt.Sprintf("%s%d", prefix, p)
		l.Plugins = append(l.Plugins, Plugin{ID: id, Kind: "git", URL: dir, Ref: "main", Commit: commit})
		for _, s := range []string{"a", "b", "c"} {
			l.Skills = append(l.Skills, Skill{Name: id + ":" + s, Tree: gitIn(t, dir, "rev-parse", "HEAD:skills/"+s)})
			tgt.Skills = append(tgt.Skills, id+":"+s)
		}
	}
	l.Targets = []Target{tgt}
	return l
}

// TestInstallWritesOnePack: an install of a lock of five git plugins into
// a store that holds a pack already leaves one pack more, not one per
// fetched plugin: a frozen install merges the fetched packs after its one
// transaction, another (a transaction per plugin) once all are added. git
// fsck --full accepts the store and the store reads every object git
// lists. With gc.auto 0 in the store's config the packs stay as they came.
func TestInstallWritesOnePack(t *testing.T) {
	for _, c := range []struct{ off, frozen bool }{{false, true}, {false, false}, {true, true}} {
		off := c.off
		ctx := context.Background()
		base := t.TempDir()
		storeDir := filepath.Join(t.TempDir(), "store")
		s := newStore(t, storeDir)
		if off {
			gitIn(t, storeDir, "config", "gc.auto", "0")
			var err error
			if s, err = store.Open(ctx, storeDir, store.Options{Actor: store.Signature{Name: "store", Email: "a@example.com"}}); err != nil {
				t.Fatal(err)
			}
		}
		packs := func() int {
			got, _ := filepath.Glob(filepath.Join(storeDir, "objects", "pack", "*.pack"))
			return len(got)
		}
		// A pack the store holds before: a lock of one plugin, installed.
		rep, err := Install(ctx, s, InstallOptions{Project: writeLock(t, gitLock(t, base, "first", 1)), Frozen: true, AllowLocal: []string{base}})
		if err != nil || rep.Failed() {
			t.Fatalf("Install of one plugin = %+v, %v", rep, err)
		}
		before := packs()
		if before != 1 {
			t.Fatalf("%d packs after installing one plugin; want the one fetched", before)
		}

		l := gitLock(t, base, "p", 5)
		rep, err = Install(ctx, s, InstallOptions{Project: writeLock(t, l), Frozen: c.frozen, AllowLocal: []string{base}})
		if err != nil || rep.Failed() {
			t.Fatalf("Install = %+v, %v", rep, err)
		}
		want := before + 1
		if off {
			want = before + len(l.Plugins)
		}
		if got := packs(); got != want {
			t.Errorf("%+v: %d packs after installing %d plugins into a store of %d; want %d", c, got, len(l.Plugins), before, want)
		}
		gitIn(t, storeDir, "fsck", "--full", "--strict", "--no-dangling")
		ids := strings.Fields(gitIn(t, storeDir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"))
		err = s.View(ctx, func(r *store.Reader) error {
			for _, id := range ids {
				h, _ := store.ParseHash(id)
				if _, err := r.Object(h); err != nil {
					return err
				}
			}
			for _, sk := range l.Skills {
				if _, ok := r.Ref(store.SkillRef(sk.Name)); !ok {
					return fmt.Errorf("skill %s not in the store", sk.Name)
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}
}
