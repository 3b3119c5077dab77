package target

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

func writeSkill(t testing.TB, dir, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + filepath.Base(dir) + "\ndescription: A test skill.\n---\n" + body
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExportStatusCapture drives the library the way `skillstore sync`
// does: export a published skill, edit it in the target, see the edit in
// Status, record it with Capture (by the capture actor, git knowing no
// identity), and find the target clean again.
func TestExportStatusCapture(t *testing.T) {
	noGitIdentity(t)
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
	agent := filepath.Join(tmp, "agent", "skills")
	if err := Add(ctx, s, Target{Name: "claude", Dir: agent}); err != nil {
		t.Fatal(err)
	}
	targets, err := List(ctx, s, nil)
	if err != nil || len(targets) != 1 {
		t.Fatalf("List = %v, %v", targets, err)
	}
	out, err := Export(ctx, s, targets, Options{})
	if err != nil || len(out) != 1 || len(out[0].Results) != 1 || out[0].Results[0].Action != reload.ActionCold {
		t.Fatalf("Export = %+v, %v", out, err)
	}

	writeSkill(t, filepath.Join(agent, "deploy"), "Run the deploy script, then check the logs.\n")
	sts, err := Status(ctx, s, targets, Options{})
	if err != nil || len(sts) != 1 || sts[0].State != reload.StateModified || sts[0].Class != reload.Hot {
		t.Fatalf("Status = %+v, %v", sts, err)
	}
	res, err := Capture(ctx, s, targets, CaptureOptions{Reason: "checked by hand"})
	if err != nil || len(res) != 1 || res[0].Outcome != Captured || res[0].Version != "deploy@v2" {
		t.Fatalf("Capture = %+v, %v", res, err)
	}
	err = s.View(ctx, func(r *store.Reader) error {
		v, err := r.Head("deploy")
		if id := s.Identity(); v.Actor != id.Name+" <"+id.Email+">" || v.MergeMode != MergeModeCapture || v.Reason != "checked by hand" {
			t.Errorf("captured version = %+v", v)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if sts, err := Status(ctx, s, targets, Options{}); err != nil || sts[0].State != reload.StateClean || sts[0].Outdated {
		t.Fatalf("Status after capture = %+v, %v", sts, err)
	}
}

// TestAddRefusesOverlapAndDuplicates checks the records' rules: a folder
// inside the store, a second target of the same name or folder.
func TestAddRefusesOverlapAndDuplicates(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var overlap *OverlapError
	if err := Add(ctx, s, Target{Name: "bad", Dir: filepath.Join(s.Dir(), "refs")}); !errors.As(err, &overlap) {
		t.Errorf("a target inside the store: %v", err)
	}
	if err := Add(ctx, s, Target{Name: "bad", Dir: tmp}); !errors.As(err, &overlap) {
		t.Errorf("a target holding the store: %v", err)
	}
	dir := filepath.Join(tmp, "a")
	if err := Add(ctx, s, Target{Name: "a", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	var exists *ExistsError
	if err := Add(ctx, s, Target{Name: "a", Dir: filepath.Join(tmp, "b")}); !errors.As(err, &exists) {
		t.Errorf("same name: %v", err)
	}
	if err := Add(ctx, s, Target{Name: "b", Dir: dir}); !errors.As(err, &exists) || exists.Other.Name != "a" {
		t.Errorf("same folder: %v", err)
	}
	var unknown *UnknownError
	if _, err := List(ctx, s, []string{"nosuch"}); !errors.As(err, &unknown) {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := Remove(ctx, s, "a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := List(ctx, s, nil); len(got) != 0 {
		t.Errorf("after Remove: %v", got)
	}
}
