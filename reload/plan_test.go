package reload

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// TestPlanMatchesExportAndWritesNothing: Plan reports the actions Export
// then takes, and writes nothing, not even the target folder.
func TestPlanMatchesExportAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	target := filepath.Join(t.TempDir(), "agent")
	skills := []Skill{{Name: "deploy", Files: skillFiles("v1\n", "one")}}

	plan, err := Plan(ctx, target, skills, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Plan created the target folder: %v", err)
	}
	if got, want := actions(plan), actions(export(t, target, skills...)); got != want || got != "deploy=cold" {
		t.Fatalf("plan %q, export %q, want deploy=cold", got, want)
	}

	// A hot change, a local edit and a foreign folder, planned then exported.
	if err := os.WriteFile(filepath.Join(target, "deploy", "SKILL.md"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(target, "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	skills = []Skill{{Name: "deploy", Files: skillFiles("v2\n", "one")}, {Name: "mine", Files: skillFiles("x\n", "x")}}
	before := readFileT(t, filepath.Join(filepath.Join(target, skillfs.BookkeepingDir), recordFile))
	plan, err = Plan(ctx, target, skills, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after := readFileT(t, filepath.Join(filepath.Join(target, skillfs.BookkeepingDir), recordFile)); after != before {
		t.Fatal("Plan rewrote the target's record")
	}
	if got, want := actions(plan), actions(export(t, target, skills...)); got != want || got != "deploy=locally-modified mine=foreign" {
		t.Fatalf("plan %q, export %q, want deploy=locally-modified mine=foreign", got, want)
	}
}

// TestBookkeepingIgnoresItself: export's bookkeeping folder holds a
// .gitignore that makes git ignore the whole folder.
func TestBookkeepingIgnoresItself(t *testing.T) {
	target := t.TempDir()
	export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "one")})
	if got := readFileT(t, filepath.Join(filepath.Join(target, skillfs.BookkeepingDir), ".gitignore")); got != bookkeepingIgnore {
		t.Fatalf(".gitignore = %q", got)
	}
}

// TestPlanWithAdoption: a plan given the folders a dry run's capture would
// have adopted (ExportOptions.Adopted) decides as the export after the
// real adoption does: the edited folder is export's own again, so a newer
// version replaces it instead of leaving it alone; the record on disk is
// not touched.
func TestPlanWithAdoption(t *testing.T) {
	ctx := context.Background()
	target := filepath.Join(t.TempDir(), "agent")
	export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "one")})
	edited := filepath.Join(target, "deploy", "SKILL.md")
	if err := os.WriteFile(edited, []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := ReadDir(filepath.Join(target, "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	newer := []Skill{{Name: "deploy", Files: skillFiles("v3, with the edit\n", "one")}}
	record := filepath.Join(target, skillfs.BookkeepingDir, recordFile)
	before := readFileT(t, record)

	plan, err := Plan(ctx, target, newer, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(plan); got != "deploy=locally-modified" {
		t.Fatalf("plan without the adoption: %q, want deploy=locally-modified", got)
	}
	adopted := &Adoption{Folders: map[string][]skillfs.File{"deploy": files}}
	plan, err = Plan(ctx, target, newer, ExportOptions{Adopted: adopted})
	if err != nil {
		t.Fatal(err)
	}
	if after := readFileT(t, record); after != before {
		t.Fatal("a plan with an adoption rewrote the target's record")
	}
	if _, err := AdoptFolders(ctx, target, adopted.Folders, nil, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := actions(plan), actions(export(t, target, newer...)); got != want || got != "deploy=hot" {
		t.Fatalf("plan with the adoption %q, export after adopting %q, want deploy=hot", got, want)
	}
}
