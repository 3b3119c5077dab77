package remote

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// Helpers shared with the store package's own tests, which a test of
// another package cannot call.

// skillMD is a SKILL.md with the given body lines.
func skillMD(name string, lines ...string) string {
	return "---\nname: " + name + "\ndescription: the " + name + " skill\n---\n" + strings.Join(lines, "\n") + "\n"
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// localEdit publishes a managed version of skill with SKILL.md replaced.
func localEdit(t testing.TB, s *store.Store, skill, content string) {
	t.Helper()
	err := s.Update(context.Background(), func(tx *store.Tx) error {
		head, err := tx.Head(skill)
		if err != nil {
			return err
		}
		files, err := tx.LoadFiles(head.Tree)
		if err != nil {
			return err
		}
		for i := range files {
			if files[i].Path == "SKILL.md" {
				files[i].Data, files[i].ID = []byte(content), store.ZeroHash
			}
		}
		tree, err := tx.WriteTree(files)
		if err != nil {
			return err
		}
		_, err = tx.CommitVersion(skill, tree, store.VersionInfo{Reason: "local edit"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func syncOnce(t testing.TB, s *store.Store, opts pluginsync.Options) map[string]pluginsync.SkillReport {
	t.Helper()
	rep, err := pluginsync.Run(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]pluginsync.SkillReport{}
	for _, p := range rep.Plugins {
		if p.Error != "" {
			t.Fatalf("plugin %s: %s", p.Plugin, p.Error)
		}
		for _, sk := range p.Skills {
			out[sk.Skill] = sk
		}
	}
	return out
}

func headOf(t testing.TB, s *store.Store, skill string) store.Version {
	t.Helper()
	var v store.Version
	err := s.View(context.Background(), func(r *store.Reader) error {
		var err error
		v, err = r.Head(skill)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// outputOf is what a helper process printed.
func outputOf(cmd *exec.Cmd) string { return cmd.Stdout.(*strings.Builder).String() }

// copyStore copies a store directory (cp -a keeps it exact).
func copyStore(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "store")
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	return to
}

// checkStore runs git fsck --strict and the store's own verify.
func checkStore(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-dangling").CombinedOutput()
	if err != nil {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
	s, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("verify: %v", rep.Problems)
	}
}

// actorName is the actor of a store made by these tests, which live in a
// folder named after their actor (newActorStore, clones into "bob").
func actorName(s *store.Store) string { return filepath.Base(s.Dir()) }
