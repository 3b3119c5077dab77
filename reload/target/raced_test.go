package target

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/safety"
)

// TestCaptureStoresRacedEdit writes into the folder export moved away (as
// a program holding SKILL.md open across the switch does): status reports
// the raced edit, capture merges it with the version published since into
// a candidate, and the kept folder is removed once it is stored.
func TestCaptureStoresRacedEdit(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(tmp, "src", "deploy")
	add := func(body string) {
		writeSkill(t, src, body)
		if _, err := s.Add(ctx, []string{src}, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk}); err != nil {
			t.Fatal(err)
		}
	}
	add("Run the deploy script.\n\nThen watch.\n")
	agent := filepath.Join(tmp, "agent")
	targets := []Target{{Name: "claude", Dir: agent}}
	if _, err := Export(ctx, s, targets, Options{}); err != nil {
		t.Fatal(err)
	}
	// An editor opens SKILL.md, export switches in v2, the editor writes.
	f, err := os.OpenFile(filepath.Join(agent, "deploy", "SKILL.md"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	add("Check first.\nRun the deploy script.\n\nThen watch.\n")
	if _, err := Export(ctx, s, targets, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("Edited while export ran.\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()

	sts, err := Status(ctx, s, targets, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var raced *SkillStatus
	for i := range sts {
		if sts[i].State == reload.StateRaced {
			raced = &sts[i]
		}
	}
	if raced == nil || raced.Skill != "deploy" {
		t.Fatalf("status does not report the raced edit: %+v", sts)
	}
	res, err := Capture(ctx, s, targets, CaptureOptions{})
	if err != nil || len(res) != 1 || res[0].Outcome != Candidate || !res[0].Raced || len(res[0].Conflicts) != 0 {
		t.Fatalf("Capture = %+v, %v", res, err)
	}
	if _, err := os.Stat(raced.Dir); !os.IsNotExist(err) {
		t.Errorf("raced edit kept after capture stored it: %v", err)
	}
	var md []byte
	err = s.View(ctx, func(r *store.Reader) error {
		c, err := candidates.Get(r, "deploy")
		if err != nil {
			return err
		}
		files, err := r.LoadFiles(c.Tree)
		for _, f := range files {
			if f.Path == "SKILL.md" {
				md = f.Data
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "Check first.") || !strings.Contains(string(md), "Edited while export ran.") {
		t.Errorf("candidate does not hold both changes:\n%s", md)
	}
	if sts, err := Status(ctx, s, targets, Options{}); err != nil || len(sts) != 1 || sts[0].State != reload.StateClean {
		t.Errorf("status after capture = %+v, %v", sts, err)
	}
}
