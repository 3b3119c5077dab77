package target

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/safedir"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// TestCaptureGoesOnPastOddEntries: one target's skill folder holds a FIFO,
// another's bookkeeping folder is a link. Capture refuses that folder and
// that target alone, naming them, and captures the edit in the third.
func TestCaptureGoesOnPastOddEntries(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"deploy", "lint"} {
		writeSkill(t, filepath.Join(tmp, "src", n), n+".\n")
		if _, err := s.Add(ctx, []string{filepath.Join(tmp, "src", n)}, store.AddOptions{AllowRisk: safety.DefaultAllowedRisk}); err != nil {
			t.Fatal(err)
		}
	}
	dirs := map[string]string{}
	for _, name := range []string{"a-fifo", "b-linked", "c-edited"} {
		dirs[name] = filepath.Join(tmp, name, "skills")
		if err := Add(ctx, s, Target{Name: name, Dir: dirs[name]}); err != nil {
			t.Fatal(err)
		}
	}
	targets, err := List(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Export(ctx, s, targets, Options{}); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dirs["a-fifo"], "deploy", "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	book := filepath.Join(dirs["b-linked"], ".skillstore")
	victim := t.TempDir()
	if err := os.RemoveAll(book); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, book); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(dirs["c-edited"], "lint"), "lint, edited.\n")

	res, err := Capture(ctx, s, targets, CaptureOptions{})
	if err != nil {
		t.Fatalf("capture stopped: %v", err)
	}
	got := map[string]CaptureResult{}
	for _, r := range res {
		got[r.Target+"/"+r.Skill] = r
	}
	if r := got["a-fifo/deploy"]; r.Outcome != Refused || !strings.Contains(r.Error, fifo) {
		t.Errorf("the FIFO's folder: %+v", r)
	}
	if r := got["b-linked/"]; r.Outcome != Refused || !strings.Contains(r.Error, book+" is a symbolic link") {
		t.Errorf("the linked bookkeeping's target: %+v", r)
	}
	if r := got["c-edited/lint"]; r.Outcome != Captured || r.Version != "lint@v2" {
		t.Errorf("the edit: %+v", r)
	}
	if len(res) != 3 {
		t.Errorf("results: %+v", res)
	}
	if entries, _ := os.ReadDir(victim); len(entries) != 0 {
		t.Errorf("the link's folder got %v", entries)
	}
	// Status returns the others with the refused target's error.
	sts, err := Status(ctx, s, targets, Options{})
	var se *StatusError
	if !errors.As(err, &se) || len(se.Failed) != 1 || !errors.Is(err, safedir.ErrNotPlain) {
		t.Errorf("status error: %v", err)
	}
	unreadable := 0
	for _, st := range sts {
		if st.State == reload.StateUnreadable {
			unreadable++
		}
	}
	if unreadable != 1 || len(sts) != 4 {
		t.Errorf("status: %+v", sts)
	}
}
