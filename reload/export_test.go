package reload

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

func skillFiles(body, script string) []skillfs.File {
	return []skillfs.File{
		{Path: "SKILL.md", Data: []byte("---\nname: deploy\ndescription: deploys\n---\n" + body)},
		{Path: "scripts/run.sh", Mode: skillfs.Executable, Data: []byte("#!/bin/sh\necho " + script + "\n")},
	}
}

func export(t *testing.T, target string, skills ...Skill) *Report {
	t.Helper()
	rep, err := Export(context.Background(), target, skills, ExportOptions{})
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	return rep
}

func actions(rep *Report) string {
	var out []string
	for _, r := range rep.Results {
		out = append(out, r.Skill+"="+string(r.Action))
	}
	return strings.Join(out, " ")
}

func readFileT(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExportLifecycle(t *testing.T) {
	target := filepath.Join(t.TempDir(), "skills")
	deploy := Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}
	lint := Skill{Name: "lint", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("lint v1\n")}}}

	rep := export(t, target, deploy, lint)
	if got := actions(rep); got != "deploy=cold lint=cold" {
		t.Fatalf("first export: %s", got)
	}
	if got := readFileT(t, filepath.Join(target, "deploy", "scripts", "run.sh")); !strings.Contains(got, "v1") {
		t.Fatalf("run.sh = %q", got)
	}
	if info, err := os.Stat(filepath.Join(target, "deploy", "scripts", "run.sh")); err != nil || info.Mode()&0o100 == 0 {
		t.Fatalf("run.sh is not executable: %v %v", info, err)
	}
	disk, err := ReadTree(filepath.Join(target, "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	if want := mustTree(t, deploy.Files...).ID; disk.ID != want || rep.Results[0].NewTree != want {
		t.Fatalf("disk tree %s, result %s, want %s", disk.ID, rep.Results[0].NewTree, want)
	}

	if got := actions(export(t, target, deploy, lint)); got != "deploy=unchanged lint=unchanged" {
		t.Fatalf("second export: %s", got)
	}

	deploy.Files = skillFiles("v2\n", "v1")
	rep = export(t, target, deploy, lint)
	if got := actions(rep); got != "deploy=hot lint=unchanged" {
		t.Fatalf("hot export: %s", got)
	}
	if !slices.Equal(rep.Results[0].Paths, []string{"SKILL.md"}) {
		t.Errorf("hot paths = %v", rep.Results[0].Paths)
	}

	deploy.Files = skillFiles("v2\n", "v2")
	if got := actions(export(t, target, deploy, lint)); got != "deploy=cold lint=unchanged" {
		t.Fatalf("cold export: %s", got)
	}

	rep = export(t, target, deploy)
	if got := actions(rep); got != "deploy=unchanged lint=removed" {
		t.Fatalf("removal export: %s", got)
	}
	if _, err := os.Lstat(filepath.Join(target, "lint")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lint folder still there: %v", err)
	}
	got, err := Exported(target)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["deploy"] != mustTree(t, deploy.Files...).ID {
		t.Errorf("Exported = %v", got)
	}
}

func TestExportNeverTouchesForeignFolders(t *testing.T) {
	target := t.TempDir()
	writeTree(t, target, map[string]string{"deploy/SKILL.md": "mine, hand-made\n", "notes.txt": "x"})
	rep := export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}, Skill{Name: "notes.txt", Files: skillFiles("n", "n")})
	if got := actions(rep); got != "deploy=foreign notes.txt=foreign" {
		t.Fatalf("export: %s", got)
	}
	if got := readFileT(t, filepath.Join(target, "deploy", "SKILL.md")); got != "mine, hand-made\n" {
		t.Errorf("foreign SKILL.md overwritten: %q", got)
	}
	// A folder export never wrote is not removed either.
	rep = export(t, target)
	if len(rep.Results) != 0 {
		t.Errorf("empty export touched %s", actions(rep))
	}
	if _, err := os.Stat(filepath.Join(target, "deploy", "SKILL.md")); err != nil {
		t.Error(err)
	}
}

func TestExportKeepsLocalEdits(t *testing.T) {
	target := t.TempDir()
	deploy := Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}
	lint := Skill{Name: "lint", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("lint v1\n")}}}
	export(t, target, deploy, lint)

	writeTree(t, target, map[string]string{"deploy/SKILL.md": "edited by hand\n", "lint/extra.md": "new file\n"})
	st, err := Status(context.Background(), target, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 || st[0].State != StateModified || st[0].Class != Hot || st[1].State != StateModified || st[1].Class != Cold {
		t.Fatalf("status = %+v", st)
	}
	if !slices.Equal(st[1].Paths, []string{"extra.md"}) {
		t.Errorf("lint local paths = %v", st[1].Paths)
	}

	// A new version of deploy and the removal of lint both leave the edits.
	deploy.Files = skillFiles("v2\n", "v2")
	rep := export(t, target, deploy)
	if got := actions(rep); got != "deploy=locally-modified lint=locally-modified" {
		t.Fatalf("export: %s", got)
	}
	if got := readFileT(t, filepath.Join(target, "deploy", "SKILL.md")); got != "edited by hand\n" {
		t.Errorf("local edit overwritten: %q", got)
	}
	if _, err := os.Stat(filepath.Join(target, "lint", "extra.md")); err != nil {
		t.Errorf("locally modified lint removed: %v", err)
	}

	// Once the store holds the edit (a capture), export adopts the folder.
	captured, err := ReadDir(filepath.Join(target, "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	deploy.Files = captured
	if got := actions(export(t, target, deploy)); got != "deploy=unchanged lint=locally-modified" {
		t.Fatalf("export after capture: %s", got)
	}
	st, err = Status(context.Background(), target, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st[0].State != StateClean {
		t.Errorf("deploy after capture: %+v", st[0])
	}
}

func TestExportReinstallsDeletedFolder(t *testing.T) {
	target := t.TempDir()
	deploy := Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}
	export(t, target, deploy)
	if err := os.RemoveAll(filepath.Join(target, "deploy")); err != nil {
		t.Fatal(err)
	}
	st, err := Status(context.Background(), target, 0)
	if err != nil || len(st) != 1 || st[0].State != StateMissing {
		t.Fatalf("status = %+v, %v", st, err)
	}
	deploy.Files = skillFiles("v2\n", "v1")
	if got := actions(export(t, target, deploy)); got != "deploy=cold" {
		t.Fatalf("export: %s", got)
	}
}

// TestExportRecoversPendingSwitch simulates a crash after the folder was
// switched but before the record was updated: the folder holds the pending
// tree, which export must recognise as its own, not as a local edit.
func TestExportRecoversPendingSwitch(t *testing.T) {
	target := t.TempDir()
	v1 := Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}
	v2 := Skill{Name: "deploy", Files: skillFiles("v2\n", "v2")}
	v3 := Skill{Name: "deploy", Files: skillFiles("v3\n", "v3")}
	export(t, target, v1)
	rec, err := readRecord(target)
	if err != nil {
		t.Fatal(err)
	}
	rec.Skills["deploy"].Pending = diskView(mustTree(t, v2.Files...)).ID // as export records it
	writeRecordT(t, target, rec)
	os.RemoveAll(filepath.Join(target, "deploy"))
	if err := os.MkdirAll(filepath.Join(target, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(filepath.Join(target, "deploy"), v2.Files); err != nil {
		t.Fatal(err)
	}
	st, err := Status(context.Background(), target, 0)
	if err != nil || st[0].State != StateClean {
		t.Fatalf("status = %+v, %v", st, err)
	}
	if got := actions(export(t, target, v3)); got != "deploy=cold" {
		t.Fatalf("export: %s", got)
	}
	if got := readFileT(t, filepath.Join(target, "deploy", "SKILL.md")); !strings.Contains(got, "v3") {
		t.Errorf("SKILL.md = %q", got)
	}
}

func TestExportFallsBackWithoutExchange(t *testing.T) {
	target := t.TempDir()
	saved := exchangeDirs
	exchangeDirs = func(a, b loc) error { return atomicfile.ErrExchangeUnsupported }
	defer func() { exchangeDirs = saved }()
	export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")})
	rep := export(t, target, Skill{Name: "deploy", Files: skillFiles("v2\n", "v1")})
	if rep.Atomic || actions(rep) != "deploy=hot" {
		t.Fatalf("fallback export: atomic=%v %s", rep.Atomic, actions(rep))
	}
	if got := readFileT(t, filepath.Join(target, "deploy", "SKILL.md")); !strings.Contains(got, "v2") {
		t.Errorf("SKILL.md = %q", got)
	}
}

func TestExportRejectsBadNames(t *testing.T) {
	for _, name := range []string{"", ".hidden", "a/b", ".skillstore"} {
		_, err := Export(context.Background(), t.TempDir(), []Skill{{Name: name}}, ExportOptions{})
		if err == nil {
			t.Errorf("Export of skill %q succeeded", name)
		}
	}
}

func TestExportCleansStagingLeftByCrash(t *testing.T) {
	target := t.TempDir()
	writeTree(t, target, map[string]string{".skillstore/tmp/deploy-123/SKILL.md": "half"})
	export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")})
	if _, err := os.Stat(filepath.Join(target, ".skillstore", "tmp", "deploy-123")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale staging folder kept: %v", err)
	}
}

func TestAdoptMarksCapturedFolderClean(t *testing.T) {
	target := t.TempDir()
	export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")})
	writeTree(t, target, map[string]string{"deploy/SKILL.md": "edited\n"})
	files, err := ReadDir(filepath.Join(target, "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, target, map[string]string{"deploy/SKILL.md": "edited again\n"})
	if err := Adopt(context.Background(), target, "deploy", files, 0); !errors.Is(err, ErrFolderChanged) {
		t.Fatalf("Adopt of a folder edited again = %v, want ErrFolderChanged", err)
	}
	if files, err = ReadDir(filepath.Join(target, "deploy")); err != nil {
		t.Fatal(err)
	}
	if err := Adopt(context.Background(), target, "deploy", files, 0); err != nil {
		t.Fatal(err)
	}
	st, err := Status(context.Background(), target, 0)
	if err != nil || st[0].State != StateClean {
		t.Fatalf("status after adopt = %+v, %v", st, err)
	}
}

// TestExportLoadsOnlyChangedSkills passes skills with their store tree IDs
// and lazy loaders: an unchanged skill is never loaded.
func TestExportLoadsOnlyChangedSkills(t *testing.T) {
	target := t.TempDir()
	v1 := skillFiles("v1\n", "v1")
	export(t, target, Skill{Name: "deploy", Files: v1})
	loads := 0
	lazy := func(files []skillfs.File) Skill {
		return Skill{Name: "deploy", Tree: mustTree(t, files...).ID, Load: func() ([]skillfs.File, error) {
			loads++
			return files, nil
		}}
	}
	if got := actions(export(t, target, lazy(v1))); got != "deploy=unchanged" || loads != 0 {
		t.Fatalf("unchanged export: %s, %d loads", got, loads)
	}
	if got := actions(export(t, target, lazy(skillFiles("v2\n", "v1")))); got != "deploy=hot" || loads != 1 {
		t.Fatalf("changed export: %s, %d loads", got, loads)
	}
}

// TestExportUndoesSwitchOverRacingEdit edits the folder after export
// checked it and just before the switch: the switch is undone and the edit
// stays in place.
func TestExportUndoesSwitchOverRacingEdit(t *testing.T) {
	target := t.TempDir()
	export(t, target, Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")})
	saved := exchangeDirs
	defer func() { exchangeDirs = saved }()
	exchangeDirs = func(a, b loc) error {
		exchangeDirs = saved
		writeTree(t, target, map[string]string{"deploy/SKILL.md": "edited during export\n"})
		return saved(a, b)
	}
	rep := export(t, target, Skill{Name: "deploy", Files: skillFiles("v2\n", "v1")})
	if got := actions(rep); got != "deploy=locally-modified" {
		t.Fatalf("export: %s", got)
	}
	if got := readFileT(t, filepath.Join(target, "deploy", "SKILL.md")); got != "edited during export\n" {
		t.Errorf("racing edit lost: SKILL.md = %q", got)
	}
	st, err := Status(context.Background(), target, 0)
	if err != nil || st[0].State != StateModified {
		t.Errorf("status = %+v, %v", st, err)
	}
	entries, _ := os.ReadDir(filepath.Join(target, ".skillstore", "tmp"))
	if len(entries) != 0 {
		t.Errorf("staging left behind: %v", entries)
	}
}
