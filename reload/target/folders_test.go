package target

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// folderStore is a store holding the published skill deploy.
func folderStore(t *testing.T) (*store.Store, string) {
	t.Helper()
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
	return s, tmp
}

func symlinkT(t *testing.T, to, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
}

// TestProjectTargetStaysInProject: a project's target reached through a
// link in the project is refused when added; one whose .claude became a
// link later is refused by export and status alone, naming the link and
// the target it leads to, while the other target is exported; nothing is
// written past the link.
func TestProjectTargetStaysInProject(t *testing.T) {
	ctx := context.Background()
	s, tmp := folderStore(t)
	home := filepath.Join(tmp, "home", ".claude", "skills")
	project := filepath.Join(tmp, "app")
	dir := filepath.Join(project, ".claude", "skills")
	if err := Add(ctx, s, Target{Name: "claude", Dir: home}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}

	// At add: .claude a link out of the project.
	symlinkT(t, filepath.Join(tmp, "home", ".claude"), filepath.Join(project, ".claude"))
	err := Add(ctx, s, Target{Name: "app", Dir: dir, Project: project})
	var out *OutsideProjectError
	if !errors.As(err, &out) || out.Entry != filepath.Join(project, ".claude") || out.Other != "claude" {
		t.Fatalf("Add through a link: %v, want an OutsideProjectError naming .claude and target claude", err)
	}
	if !strings.HasPrefix(err.Error(), "target app: "+out.Entry+" is a symbolic link to ") {
		t.Errorf("message: %s", err)
	}

	// Added while .claude was a folder, then a link swapped in.
	if err := os.Remove(filepath.Join(project, ".claude")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Add(ctx, s, Target{Name: "app", Dir: dir, Project: project}); err != nil {
		t.Fatal(err)
	}
	targets, err := List(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Export(ctx, s, targets, Options{}); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(tmp, "victim")
	if err := os.MkdirAll(filepath.Join(victim, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(project, ".claude")); err != nil {
		t.Fatal(err)
	}
	symlinkT(t, victim, filepath.Join(project, ".claude"))
	src := filepath.Join(tmp, "src", "lint")
	writeSkill(t, src, "Run the linter.\n")
	if _, err := s.Add(ctx, []string{src}, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk}); err != nil {
		t.Fatal(err)
	}
	got, err := Export(ctx, s, targets, Options{})
	var ee *ExportError
	if !errors.As(err, &ee) || len(ee.Failed) != 1 || ee.Failed[0].Target != "app" || !errors.As(ee.Failed[0].Err, &out) {
		t.Fatalf("Export after the swap: %v, want target app alone refused", err)
	}
	for _, te := range got {
		if te.Target == "claude" && (len(te.Results) != 2 || te.Error != "") {
			t.Errorf("claude was not exported: %+v", te)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "lint", "SKILL.md")); err != nil {
		t.Errorf("the other target did not get lint: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(victim, "skills")); len(entries) != 0 {
		t.Errorf("export wrote past the link: %v", entries)
	}
	if _, err := Plan(ctx, s, targets, Options{}); !errors.As(err, &out) {
		t.Errorf("Plan after the swap: %v", err)
	}
	_, err = Status(ctx, s, targets, Options{})
	var se *StatusError
	if !errors.As(err, &se) || len(se.Failed) != 1 || se.Failed[0].Target != "app" {
		t.Errorf("Status after the swap: %v", err)
	}
}

// TestTargetsOnOneFolderAreRefused: a target whose folder is another's
// through a link is refused at add; two that became one folder later are
// both refused by export and status, naming each other, and neither
// removes what the other wrote.
func TestTargetsOnOneFolderAreRefused(t *testing.T) {
	ctx := context.Background()
	s, tmp := folderStore(t)
	home := filepath.Join(tmp, "home", ".claude", "skills")
	if err := Add(ctx, s, Target{Name: "claude", Dir: home}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	symlinkT(t, home, filepath.Join(tmp, "alias"))
	var shared *SharedFolderError
	err := Add(ctx, s, Target{Name: "alias", Dir: filepath.Join(tmp, "alias")})
	if !errors.As(err, &shared) || shared.Other.Name != "claude" || !strings.Contains(err.Error(), "targets alias (") {
		t.Fatalf("Add on one folder: %v", err)
	}
	symlinkT(t, filepath.Join(tmp, "home", ".claude"), filepath.Join(tmp, "up"))
	if err := Add(ctx, s, Target{Name: "up", Dir: filepath.Join(tmp, "up")}); !errors.As(err, &shared) || !strings.Contains(err.Error(), "lies inside") {
		t.Fatalf("Add holding the other's folder: %v", err)
	}

	other := filepath.Join(tmp, "other")
	if err := Add(ctx, s, Target{Name: "other", Dir: other}); err != nil {
		t.Fatal(err)
	}
	targets, err := List(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Export(ctx, s, targets, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(other); err != nil {
		t.Fatal(err)
	}
	symlinkT(t, home, other)
	// Export one of them alone: still refused, the other is recorded.
	for _, names := range [][]string{{"claude", "other"}, {"other"}} {
		some, err := List(ctx, s, names)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Export(ctx, s, some, Options{})
		var ee *ExportError
		if !errors.As(err, &ee) || len(ee.Failed) != len(names) {
			t.Fatalf("Export %v: %v, want each refused", names, err)
		}
		for _, f := range ee.Failed {
			if !errors.As(f.Err, &shared) {
				t.Errorf("%s: %v", f.Target, f.Err)
			}
		}
	}
	if _, err := Status(ctx, s, targets, Options{}); !errors.As(err, &shared) {
		t.Errorf("Status: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "deploy", "SKILL.md")); err != nil {
		t.Errorf("the skill left the folder: %v", err)
	}
	// Removing one of them lets the other export again.
	if _, err := Remove(ctx, s, "other"); err != nil {
		t.Fatal(err)
	}
	targets, _ = List(ctx, s, nil)
	if out, err := Export(ctx, s, targets, Options{}); err != nil || out[0].Results[0].Action != reload.ActionUnchanged {
		t.Errorf("Export after rm: %+v, %v", out, err)
	}
}
