package reload

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func stagingLeft(t *testing.T, target string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(target, ".skillstore", "tmp"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestFailedExportLeavesNoStaging makes the switch of a staged version fail:
// export reports the skill failed and removes what it staged.
func TestFailedExportLeavesNoStaging(t *testing.T) {
	target := t.TempDir()
	export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")})
	saved := exchangeDirs
	defer func() { exchangeDirs = saved }()
	exchangeDirs = func(a, b loc) error { return errors.New("injected switch failure") }
	rep, err := Export(context.Background(), target, []Skill{{Name: "deploy", Files: skillFiles("v2\n", "v1")}}, ExportOptions{})
	if err == nil || actions(rep) != "deploy=failed" {
		t.Fatalf("export = %s, %v; want deploy=failed and an error", actions(rep), err)
	}
	if left := stagingLeft(t, target); len(left) > 0 {
		t.Errorf("failed export left staging folders: %v", left)
	}
	if got := readFileT(t, filepath.Join(target, "deploy", "SKILL.md")); got != string(skillFiles("v1\n", "v1")[0].Data) {
		t.Errorf("folder changed by a failed export: %q", got)
	}
}

// TestStatusCleansStagingOfFailedExport: a staging folder left by an export
// that was killed or failed is removed by the next command that locks the
// target, not only by the next export.
func TestStatusCleansStagingOfFailedExport(t *testing.T) {
	target := t.TempDir()
	export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")})
	writeTree(t, target, map[string]string{".skillstore/tmp/deploy-123/SKILL.md": "half"})
	if _, err := Status(context.Background(), target, 0); err != nil {
		t.Fatal(err)
	}
	if left := stagingLeft(t, target); len(left) > 0 {
		t.Errorf("status kept staging folders: %v", left)
	}
}

// TestLinkedSkillFolderIsSkipped: a skill folder replaced by a symbolic link
// (a dotfiles setup) is reported as linked and left alone by export and
// status; the other skills are exported and the export succeeds.
func TestLinkedSkillFolderIsSkipped(t *testing.T) {
	ctx := context.Background()
	target := t.TempDir()
	dotfiles := t.TempDir()
	export(t, target, Skill{Name: "a", Files: skillFiles("a1\n", "a")}, Skill{Name: "b", Files: skillFiles("b1\n", "b")})
	linked := filepath.Join(dotfiles, "b")
	if err := os.Rename(filepath.Join(target, "b"), linked); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(linked, filepath.Join(target, "b")); err != nil {
		t.Fatal(err)
	}
	rep, err := Export(ctx, target, []Skill{{Name: "a", Files: skillFiles("a2\n", "a")}, {Name: "b", Files: skillFiles("b2\n", "b")}}, ExportOptions{})
	if err != nil {
		t.Fatalf("export failed over a linked folder: %v", err)
	}
	if got := actions(rep); got != "a=hot b=linked" {
		t.Fatalf("export: %s", got)
	}
	if got := readFileT(t, filepath.Join(linked, "SKILL.md")); got != string(skillFiles("b1\n", "b")[0].Data) {
		t.Errorf("export wrote through the link: %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(target, "b")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced: %v, %v", fi, err)
	}
	sts, err := Status(ctx, target, 0)
	if err != nil {
		t.Fatalf("status aborted on a linked folder: %v", err)
	}
	if len(sts) != 2 || sts[0].State != StateClean || sts[1].State != StateLinked || sts[1].Link != linked {
		t.Errorf("status = %+v", sts)
	}
	// Removing the skill leaves the link alone too.
	rep, err = Export(ctx, target, []Skill{{Name: "a", Files: skillFiles("a2\n", "a")}}, ExportOptions{})
	if err != nil || actions(rep) != "a=unchanged b=linked" {
		t.Errorf("export without b: %s, %v", actions(rep), err)
	}
}
