package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportTakesTheCanonicalCopyOnce imports a tree where one skill sits
// in its repository, in .agents/skills (npx skills' copy) and in
// .claude/skills: it is recorded once, from the repository, and the other
// copies are reported as duplicates. A copy with other files fails alone.
func TestImportTakesTheCanonicalCopyOnce(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	root := t.TempDir()
	repo := filepath.Join(root, "src", "pdf-skill")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	extra := map[string]string{"scripts/read.py": "print('pdf')\n"}
	writeSkill(t, filepath.Join(repo, "skills"), "pdf", "Read PDFs.", extra)
	writeSkill(t, filepath.Join(root, ".agents", "skills"), "pdf", "Read PDFs.", extra)
	writeSkill(t, filepath.Join(root, ".claude", "skills"), "pdf", "Read PDFs.", extra)

	res, err := s.Import(ctx, root, defaultAdd())
	if err != nil {
		t.Fatal(err)
	}
	var recorded, dups []string
	for _, r := range res {
		rel, _ := filepath.Rel(root, r.Dir)
		switch {
		case r.Err != nil:
			t.Errorf("%s: %v", rel, r.Err)
		case r.DuplicateOf != "":
			canon, _ := filepath.Rel(root, r.DuplicateOf)
			dups = append(dups, rel+" of "+canon)
		default:
			recorded = append(recorded, rel)
		}
	}
	if got := strings.Join(recorded, ","); got != "src/pdf-skill/skills/pdf" {
		t.Errorf("recorded %s, want the repository copy", got)
	}
	if got := strings.Join(dups, ","); got != ".agents/skills/pdf of src/pdf-skill/skills/pdf,.claude/skills/pdf of src/pdf-skill/skills/pdf" {
		t.Errorf("duplicates %s", got)
	}
	if log, err := s.Log(ctx, "pdf"); err != nil || len(log) != 1 {
		t.Errorf("pdf has %d versions (%v), want 1", len(log), err)
	}

	// An edited copy in .claude/skills is a conflict the canonical copy wins.
	writeSkill(t, filepath.Join(root, ".claude", "skills"), "pdf", "Read PDFs, edited.", extra)
	res, err = s.Import(ctx, root, defaultAdd())
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, r := range res {
		if r.Err != nil {
			failed++
			if !strings.Contains(r.Err.Error(), "both hold the skill \"pdf\" with different files; the first is the canonical copy") || !strings.HasSuffix(r.Dir, ".claude/skills/pdf") {
				t.Errorf("%s: %v", r.Dir, r.Err)
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d failures, want the edited copy only: %+v", failed, res)
	}
}

// TestAddTakesIdenticalFoldersOnce: add, all or nothing, accepts two
// identical folders of one skill and records one version.
func TestAddTakesIdenticalFoldersOnce(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	a := writeSkill(t, filepath.Join(t.TempDir(), "a"), "notes", "Notes.", nil)
	b := writeSkill(t, filepath.Join(t.TempDir(), "b"), "notes", "Notes.", nil)
	res, err := s.Add(ctx, []string{a, b}, defaultAdd())
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Version.Number != 1 || res[1].DuplicateOf != a {
		t.Errorf("results %+v", res)
	}
	c := writeSkill(t, filepath.Join(t.TempDir(), "c"), "notes", "Other notes.", nil)
	if _, err := s.Add(ctx, []string{a, c}, defaultAdd()); err == nil || !strings.Contains(err.Error(), "with different files") {
		t.Errorf("differing folders: %v", err)
	}
}
