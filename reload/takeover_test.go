package reload

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// TestExportTakesOverLinksToManagedCopies checks which links
// ReplaceLinks replaces: one into another target's recorded folder (its
// files an older version), one to a folder IsVersion knows; never a link
// to an unknown folder, a link loop, or a link a person put in place of a
// folder export wrote. Only the link goes; the folder it pointed at stays.
func TestExportTakesOverLinksToManagedCopies(t *testing.T) {
	for _, exchange := range []bool{true, false} {
		t.Run(map[bool]string{true: "exchange", false: "two renames"}[exchange], func(t *testing.T) {
			if !exchange {
				saved := exchangeDirs
				exchangeDirs = func(a, b loc) error { return atomicfile.ErrExchangeUnsupported }
				t.Cleanup(func() { exchangeDirs = saved })
			}
			testLinkTakeover(t)
		})
	}
}

func testLinkTakeover(t *testing.T) {
	root := t.TempDir()
	canon, target := filepath.Join(root, "agents"), filepath.Join(root, "claude")
	oldDeploy := Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}
	newDeploy := Skill{Name: "deploy", Files: skillFiles("v2\n", "v2")}
	export(t, canon, oldDeploy) // another target, which export recorded
	known := Skill{Name: "known", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("known v1\n")}}}
	knownV2 := Skill{Name: "known", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("known v2\n")}}}
	stranger := Skill{Name: "stranger", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("ours\n")}}}
	loop := Skill{Name: "loop", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("loop\n")}}}
	dotfiles := Skill{Name: "dotfiles", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("dot v1\n")}}}
	if err := WriteFiles(mkdir(t, filepath.Join(root, "copies", "known")), known.Files); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(mkdir(t, filepath.Join(root, "copies", "stranger")), []skillfs.File{{Path: "SKILL.md", Data: []byte("theirs\n")}}); err != nil {
		t.Fatal(err)
	}
	// dotfiles was exported, then the person moved it away and linked it.
	export(t, target, dotfiles)
	if err := os.Rename(filepath.Join(target, "dotfiles"), filepath.Join(root, "copies", "dotfiles")); err != nil {
		t.Fatal(err)
	}
	symlinkT(t, "../agents/deploy", filepath.Join(target, "deploy"))
	symlinkT(t, "../copies/known", filepath.Join(target, "known"))
	symlinkT(t, "../copies/stranger", filepath.Join(target, "stranger"))
	symlinkT(t, "loop", filepath.Join(target, "loop"))
	symlinkT(t, filepath.Join(root, "copies", "dotfiles"), filepath.Join(target, "dotfiles"))

	knownTree, _ := NewTree(known.Files)
	opts := ExportOptions{ReplaceLinks: true, IsVersion: func(skill string, tree skillfs.ID) bool {
		return skill == "known" && tree == knownTree.ID
	}}
	dotV2 := Skill{Name: "dotfiles", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("dot v2\n")}}}
	skills := []Skill{newDeploy, knownV2, stranger, loop, dotV2}

	plan, err := Plan(context.Background(), target, skills, opts)
	if err != nil || actions(plan) != "deploy=link-replaced dotfiles=linked known=link-replaced loop=foreign stranger=foreign" {
		t.Fatalf("Plan = %s, %v", actions(plan), err)
	}
	if _, err := os.Readlink(filepath.Join(target, "deploy")); err != nil {
		t.Fatal("the plan replaced a link")
	}
	rep, err := Export(context.Background(), target, skills, opts)
	if err != nil || actions(rep) != actions(plan) {
		t.Fatalf("Export = %s, %v", actions(rep), err)
	}
	for _, s := range []Skill{newDeploy, knownV2} {
		disk, err := ReadTree(filepath.Join(target, s.Name))
		want, _ := NewTree(s.Files)
		if err != nil || disk.ID != want.ID {
			t.Errorf("%s after takeover: %v, %v", s.Name, disk.TreeID(), err)
		}
	}
	if got := readFileT(t, filepath.Join(canon, "deploy", "SKILL.md")); got != string(oldDeploy.Files[0].Data) {
		t.Errorf("the linked copy changed: %q", got)
	}
	for _, name := range []string{"stranger", "loop", "dotfiles"} {
		if _, err := os.Readlink(filepath.Join(target, name)); err != nil {
			t.Errorf("%s is no longer a link: %v", name, err)
		}
	}
	// The replaced folders are export's own now.
	if got := actions(export(t, target, newDeploy, knownV2)); got != "deploy=unchanged dotfiles=linked known=unchanged" {
		t.Errorf("export again: %s", got)
	}
	// Without ReplaceLinks a link stays.
	other := filepath.Join(root, "other")
	symlinkT(t, "../agents/deploy", mkdirParent(t, filepath.Join(other, "deploy")))
	if got := actions(export(t, other, oldDeploy)); got != "deploy=foreign" {
		t.Errorf("without ReplaceLinks: %s", got)
	}
}

// TestExportAdoptsIdenticalFolder checks that a folder export did not
// create but whose files are the version it would write is recorded, not
// reported foreign, and is export's own afterwards.
func TestExportAdoptsIdenticalFolder(t *testing.T) {
	target := filepath.Join(t.TempDir(), "skills")
	v1, v2 := Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}, Skill{Name: "deploy", Files: skillFiles("v2\n", "v1")}
	if err := WriteFiles(mkdir(t, filepath.Join(target, "deploy")), v1.Files); err != nil {
		t.Fatal(err)
	}
	if got := actions(export(t, target, v2)); got != "deploy=foreign" {
		t.Fatalf("a different folder: %s", got)
	}
	if got := actions(export(t, target, v1)); got != "deploy=adopted" {
		t.Fatalf("the same folder: %s", got)
	}
	if got := actions(export(t, target, v2)); got != "deploy=hot" {
		t.Fatalf("the adopted folder: %s", got)
	}
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mkdirParent(t *testing.T, p string) string {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	return p
}

func symlinkT(t *testing.T, old, new string) {
	t.Helper()
	if err := os.Symlink(old, new); err != nil {
		t.Fatal(err)
	}
}
