//go:build windows

package reload

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/skillstore/skillstore/internal/safedir"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// On Windows a folder keeps no execute bit: a skill with a script that
// export wrote reads back clean (status and the next export do not take
// it for a local edit), an edit is still seen, and capture's read gets
// the script's execute bit back from the record.
func TestExecuteBitIsNotALocalEdit(t *testing.T) {
	target := t.TempDir()
	v1 := Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}
	v2 := Skill{Name: "deploy", Files: skillFiles("v2\n", "v1")} // SKILL.md only
	export(t, target, v1)
	st, err := Status(context.Background(), target, 0)
	if err != nil || len(st) != 1 || st[0].State != StateClean {
		t.Fatalf("status after export = %+v, %v; want clean", st, err)
	}
	if got := actions(export(t, target, v2)); got != "deploy=hot" {
		t.Fatalf("export of v2: %s, want deploy=hot (only SKILL.md changed)", got)
	}
	script := filepath.Join(target, "deploy", "scripts", "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err = Status(context.Background(), target, 0)
	if err != nil || st[0].State != StateModified || strings.Join(st[0].Paths, " ") != "scripts/run.sh" {
		t.Fatalf("status after an edit = %+v, %v; want modified scripts/run.sh", st, err)
	}
	files, err := ReadDir(filepath.Join(target, "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	ExportedModes(target, "deploy", files)
	if f, _ := skillfs.Find(files, "scripts/run.sh"); f.Mode != skillfs.Executable {
		t.Errorf("captured script has mode %s, want executable as exported", f.Mode)
	}
}

// A skill folder another program holds (here: opened the way a shell in
// it does) cannot be switched on Windows: export reports that skill
// failed with an error saying so, the old version stays whole in place,
// the others are exported, and the next export, once the folder is free,
// switches it.
func TestExportOfFolderInUse(t *testing.T) {
	target := t.TempDir()
	deploy1 := Skill{Name: "deploy", Files: skillFiles("v1\n", "v1")}
	deploy2 := Skill{Name: "deploy", Files: skillFiles("v2\n", "v1")} // SKILL.md only
	other := Skill{Name: "other", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("---\nname: other\ndescription: o\n---\n")}}}
	export(t, target, deploy1)
	p, err := windows.UTF16PtrFromString(filepath.Join(target, "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Export(context.Background(), target, []Skill{deploy2, other}, ExportOptions{})
	var iu *safedir.InUseError
	if !errors.As(err, &iu) {
		t.Fatalf("export with the folder in use: %v, want an InUseError", err)
	}
	if got := actions(rep); got != "deploy=failed other=cold" {
		t.Errorf("export: %s, want deploy=failed other=cold", got)
	}
	if got := readFileT(t, filepath.Join(target, "deploy", "SKILL.md")); !strings.Contains(got, "v1") {
		t.Errorf("the folder in use changed: %q", got)
	}
	windows.CloseHandle(h)
	if got := actions(export(t, target, deploy2, other)); got != "deploy=hot other=unchanged" {
		t.Errorf("export once the folder is free: %s", got)
	}
	if got := readFileT(t, filepath.Join(target, "deploy", "SKILL.md")); !strings.Contains(got, "v2") {
		t.Errorf("SKILL.md = %q after the retry", got)
	}
}

// A file whose name Windows reads as a device fails its skill, naming
// the file; nothing of it is written, and the other skills go out.
func TestExportRefusesDeviceFileNames(t *testing.T) {
	target := t.TempDir()
	bad := Skill{Name: "deploy", Files: append(skillFiles("v1\n", "v1"), skillfs.File{Path: "docs/nul.md", Data: []byte("x")})}
	other := Skill{Name: "other", Files: []skillfs.File{{Path: "SKILL.md", Data: []byte("---\nname: other\ndescription: o\n---\n")}}}
	rep, err := Export(context.Background(), target, []Skill{bad, other}, ExportOptions{})
	var we *skillfs.WindowsNameError
	if !errors.As(err, &we) || we.Path != "docs/nul.md" {
		t.Fatalf("export: %v, want a WindowsNameError naming docs/nul.md", err)
	}
	if got := actions(rep); got != "deploy=failed other=cold" {
		t.Errorf("export: %s, want deploy=failed other=cold", got)
	}
	if _, err := os.Lstat(filepath.Join(target, "deploy")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused skill's folder exists: %v", err)
	}
}

// Where links cannot be made, a link to a file of the skill is written as
// a copy of it and any other link is left out, each with a note.
func TestLinkTargets(t *testing.T) {
	files := []skillfs.File{
		{Path: "SKILL.md", Data: []byte("skill")},
		{Path: "scripts/run.sh", Mode: skillfs.Executable, Data: []byte("run")},
		{Path: "scripts/dir/x", Data: []byte("x")},
	}
	for link, want := range map[string]string{
		"scripts/run":      "run.sh",
		"docs/SKILL":       "../SKILL.md",
		"escape":           "../outside",
		"abs":              "/etc/passwd",
		"drive":            `C:\Windows\win.ini`,
		"folder":           "scripts/dir",
		"missing":          "nothing",
		"scripts/dir/back": "../run.sh",
	} {
		f := skillfs.File{Path: link, Mode: skillfs.Symlink, Data: []byte(want)}
		got, ok := linkTarget(f, files)
		switch link {
		case "scripts/run", "scripts/dir/back":
			if !ok || got.Path != "scripts/run.sh" {
				t.Errorf("%s -> %s: %v %v, want scripts/run.sh", link, want, got.Path, ok)
			}
		case "docs/SKILL":
			if !ok || got.Path != "SKILL.md" {
				t.Errorf("%s -> %s: %v %v, want SKILL.md", link, want, got.Path, ok)
			}
		default:
			if ok {
				t.Errorf("%s -> %s resolved to %s, want left out", link, want, got.Path)
			}
		}
	}
}
