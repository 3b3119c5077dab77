package target

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

func plumb(t *testing.T, dir string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestBrokenSkillFailsAloneInExport: a version whose tree holds two
// SKILL.md (written into the store with git plumbing) fails that skill's
// export; the target's other skills are exported.
func TestBrokenSkillFailsAloneInExport(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	tmp := t.TempDir()
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(tmp, "src", "deploy")
	writeSkill(t, src, "Run the deploy script.\n")
	if _, err := s.Add(ctx, []string{src}, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk}); err != nil {
		t.Fatal(err)
	}
	md := plumb(t, s.Dir(), []byte("---\nname: dup\ndescription: d\n---\nx\n"), "hash-object", "-w", "--stdin")
	id, _ := skillfs.ParseID(md)
	var raw bytes.Buffer
	for range 2 {
		raw.WriteString("100644 SKILL.md\x00")
		raw.Write(id[:])
	}
	tree := plumb(t, s.Dir(), raw.Bytes(), "hash-object", "-w", "--literally", "-t", "tree", "--stdin")
	commit := plumb(t, s.Dir(), nil, "commit-tree", tree, "-m", "dup v1\n\nSkill-Version: 1\nSource: managed")
	plumb(t, s.Dir(), nil, "update-ref", store.SkillRef("dup"), commit)

	agent := filepath.Join(tmp, "agent", "skills")
	if err := Add(ctx, s, Target{Name: "claude", Dir: agent}); err != nil {
		t.Fatal(err)
	}
	targets, err := List(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Export(ctx, s, targets, Options{})
	if err == nil || len(out) != 1 || out[0].Error != "" {
		t.Fatalf("Export = %+v, %v; want only the broken skill failed", out, err)
	}
	got := map[string]reload.Action{}
	for _, r := range out[0].Results {
		got[r.Skill] = r.Action
	}
	if got["deploy"] != reload.ActionCold || got["dup"] != reload.ActionFailed {
		t.Errorf("results %v, want deploy installed and dup failed", got)
	}
	if _, err := os.Stat(filepath.Join(agent, "deploy", "SKILL.md")); err != nil {
		t.Errorf("the healthy skill was not exported: %v", err)
	}
}
