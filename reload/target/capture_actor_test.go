package target

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// noGitIdentity makes git know no author: no $GIT_AUTHOR_*, an empty global
// config and no system config.
func noGitIdentity(t *testing.T) {
	t.Helper()
	t.Setenv("GIT_AUTHOR_NAME", "")
	t.Setenv("GIT_AUTHOR_EMAIL", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
}

// TestCaptureRecordsGitIdentity checks that a captured edit is recorded as
// git's author identity — from user.name/user.email here — with the target
// it was made in kept in the reason, and that git itself reads the same
// author from the store.
func TestCaptureRecordsGitIdentity(t *testing.T) {
	noGitIdentity(t)
	ctx := context.Background()
	tmp := t.TempDir()
	cfg := "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n"
	if err := os.WriteFile(os.Getenv("GIT_CONFIG_GLOBAL"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(tmp, "src", "deploy")
	writeSkill(t, src, "Run the deploy script.\n")
	if _, err := s.Add(ctx, []string{src}, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk}); err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(tmp, "agent", "skills")
	if err := Add(ctx, s, Target{Name: "claude", Dir: agent}); err != nil {
		t.Fatal(err)
	}
	targets, err := List(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := Export(ctx, s, targets, Options{}); err != nil || out[0].Results[0].Action != reload.ActionCold {
		t.Fatalf("Export = %+v, %v", out, err)
	}
	writeSkill(t, filepath.Join(agent, "deploy"), "Run the deploy script, then check the logs.\n")
	if res, err := Capture(ctx, s, targets, CaptureOptions{}); err != nil || len(res) != 1 || res[0].Outcome != Captured {
		t.Fatalf("Capture = %+v, %v", res, err)
	}
	err = s.View(ctx, func(r *store.Reader) error {
		v, err := r.Head("deploy")
		if v.Actor != "Ada Lovelace <ada@example.com>" || v.Reason != "local edit in target claude" {
			t.Errorf("captured version = %+v", v)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	out, err := exec.Command("git", "--git-dir="+s.Dir(), "log", "-1", "--format=%an <%ae>", "refs/heads/skills/deploy").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "Ada Lovelace <ada@example.com>" {
		t.Errorf("git log author = %q", got)
	}
}
