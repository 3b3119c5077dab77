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
