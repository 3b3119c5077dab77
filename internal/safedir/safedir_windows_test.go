//go:build windows

package safedir

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Names Windows reads as devices, streams or other names are refused by
// every operation, naming the entry, and nothing is made or moved: NUL
// would swallow a record, CON.json read the keyboard, "a:b" hide a stream
// in a, and "x." be x.
func TestWindowsNamesRefused(t *testing.T) {
	d, _ := openTemp(t)
	if err := d.Mkdir("a", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"con", "NUL.json", "aux", "com1.txt", "lpt9", "a:b", "x.", "y "} {
		var we *skillfs.WindowsNameError
		check := func(op string, err error) {
			t.Helper()
			if !errors.As(err, &we) || we.Name != name {
				t.Errorf("%s(%q): %v, want a WindowsNameError naming it", op, name, err)
			}
		}
		check("Mkdir", d.Mkdir(name, 0o755))
		_, err := d.MkSub(name, 0o755)
		check("MkSub", err)
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
		if err == nil {
			f.Close()
		}
		check("OpenFile", err)
		check("WriteFile", d.WriteFile(name, []byte("{}"), 0o644))
		check("Rename", Rename(d, "a", d, name))
		check("RenameNoReplace", RenameNoReplace(d, "a", d, name))
	}
	if names, err := d.Names(); err != nil || strings.Join(names, " ") != "a" {
		t.Errorf("entries %v, %v; want only a", names, err)
	}
}

// openDirHandle opens the folder path the way a shell whose working folder
// it is holds it: without letting it be moved or deleted.
func openDirHandle(t *testing.T, path string) windows.Handle {
	t.Helper()
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A folder another program holds cannot be renamed on Windows: the
// rename is an *InUseError that names the folder and says what to do, the
// folder stays whole where it was, and once the program lets go the
// rename works (export's next run switches it).
func TestRenameOfFolderInUse(t *testing.T) {
	d, root := openTemp(t)
	if err := d.Mkdir("skill", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "skill", "SKILL.md"), []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := openDirHandle(t, filepath.Join(root, "skill"))
	for op, rename := range map[string]func() error{
		"Rename":          func() error { return Rename(d, "skill", d, "old") },
		"RenameNoReplace": func() error { return RenameNoReplace(d, "skill", d, "old") },
	} {
		err := rename()
		var iu *InUseError
		if !errors.As(err, &iu) || iu.Path != filepath.Join(root, "skill") || !strings.Contains(err.Error(), "close that program") {
			t.Errorf("%s of a folder in use: %v, want an InUseError naming it", op, err)
		}
		if data, err := os.ReadFile(filepath.Join(root, "skill", "SKILL.md")); err != nil || string(data) != "v1" {
			t.Errorf("after %s the folder holds %q, %v", op, data, err)
		}
		if _, err := d.Mode("old"); err == nil {
			t.Errorf("%s moved the folder anyway", op)
		}
	}
	windows.CloseHandle(h)
	if err := Rename(d, "skill", d, "old"); err != nil {
		t.Fatalf("rename once the folder is free: %v", err)
	}
}

// A junction (a reparse point any account can make, unlike a symbolic
// link) is refused as a link: Sub does not enter it, OpenFile does not
// open through it, RemoveAll removes the junction and not what it points
// at.
func TestJunctionIsALink(t *testing.T) {
	d, root := openTemp(t)
	vdir, unchanged := victim(t)
	j := filepath.Join(root, "j")
	out, err := exec.Command("cmd", "/c", "mklink", "/J", j, vdir).CombinedOutput()
	if _, lerr := os.Lstat(j); err != nil || lerr != nil {
		t.Skipf("cannot make a junction here: %v %v %s", err, lerr, out)
	}
	sub, err := d.Sub("j")
	if err == nil {
		sub.Close()
	}
	if !errors.Is(err, ErrNotPlain) || !strings.Contains(err.Error(), j) || !strings.Contains(err.Error(), "junction") {
		t.Errorf("Sub(junction): %v, want ErrNotPlain naming it a junction", err)
	}
	if _, err := d.MkSub("j", 0o755); !errors.Is(err, ErrNotPlain) {
		t.Errorf("MkSub(junction): %v, want ErrNotPlain", err)
	}
	if err := d.WriteFile("j", []byte("x"), 0o644); err == nil {
		t.Error("WriteFile over a junction succeeded")
	}
	if err := d.RemoveAll("j"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(j); err == nil {
		t.Error("the junction is still there")
	}
	unchanged()
}
