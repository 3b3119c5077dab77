package safedir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// victim makes a folder outside the one under test, holding a file, and
// returns it with a check that it is byte for byte as it was.
func victim(t *testing.T) (string, func()) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "victim")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"precious.txt", "sub/more.txt"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("keep "+p+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, func() {
		t.Helper()
		for _, p := range []string{"precious.txt", "sub/more.txt"} {
			data, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil || string(data) != "keep "+p+"\n" {
				t.Errorf("victim %s changed: %q, %v", p, data, err)
			}
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 2 {
			t.Errorf("victim folder holds %d entries, want 2", len(entries))
		}
	}
}

func openTemp(t *testing.T) (*Dir, string) {
	t.Helper()
	root := t.TempDir()
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, root
}

func TestSubRefusesLinksAndFiles(t *testing.T) {
	d, root := openTemp(t)
	vdir, unchanged := victim(t)
	symlink(t, vdir, filepath.Join(root, "link"))
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"link", "file"} {
		_, err := d.Sub(name)
		var np *NotPlainError
		if !errors.As(err, &np) || !errors.Is(err, ErrNotPlain) {
			t.Fatalf("Sub(%s): %v, want a *NotPlainError", name, err)
		}
		if np.Path != filepath.Join(root, name) || !strings.Contains(err.Error(), filepath.Join(root, name)) {
			t.Errorf("error does not name the entry: %v", err)
		}
		if _, err := d.MkSub(name, 0o755); !errors.Is(err, ErrNotPlain) {
			t.Errorf("MkSub(%s): %v, want ErrNotPlain", name, err)
		}
	}
	if _, err := d.Sub("link"); !strings.Contains(err.Error(), "a symbolic link to "+vdir) {
		t.Errorf("error does not say where the link points: %v", err)
	}
	if _, err := d.Sub("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Sub(missing): %v, want fs.ErrNotExist", err)
	}
	sub, err := d.MkSub("made", 0o755)
	if err != nil {
		t.Fatal(err)
	}
	sub.Close()
	unchanged()
}

func TestNamesMustBeOneEntry(t *testing.T) {
	d, _ := openTemp(t)
	for _, name := range []string{"", ".", "..", "../x", "a/b"} {
		if _, err := d.Sub(name); err == nil {
			t.Errorf("Sub(%q) succeeded", name)
		}
		if err := d.RemoveAll(name); err == nil {
			t.Errorf("RemoveAll(%q) succeeded", name)
		}
		if err := Rename(d, "x", d, name); err == nil {
			t.Errorf("Rename to %q succeeded", name)
		}
	}
}

func TestRemoveAllRemovesLinksNotTargets(t *testing.T) {
	d, root := openTemp(t)
	vdir, unchanged := victim(t)
	tree := filepath.Join(root, "tree", "deep")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{filepath.Join(root, "tree", "toVictim"), filepath.Join(tree, "toVictim"), filepath.Join(root, "top")} {
		symlink(t, vdir, l)
	}
	if err := os.WriteFile(filepath.Join(tree, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tree", "top", "missing"} {
		if err := d.RemoveAll(name); err != nil {
			t.Fatalf("RemoveAll(%s): %v", name, err)
		}
	}
	if names, _ := d.Names(); len(names) != 0 {
		t.Errorf("left %v", names)
	}
	unchanged()
}

func TestWriteFileAtomicRefusesLink(t *testing.T) {
	d, root := openTemp(t)
	vdir, unchanged := victim(t)
	if err := d.WriteFile("record.json", []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("record.json", []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := d.ReadFile("record.json", 100); err != nil || string(data) != "two\n" {
		t.Fatalf("read back %q, %v", data, err)
	}
	symlink(t, filepath.Join(vdir, "precious.txt"), filepath.Join(root, "linked.json"))
	if err := d.WriteFile("linked.json", []byte("x"), 0o644); !errors.Is(err, ErrNotPlain) {
		t.Errorf("WriteFile over a link: %v, want ErrNotPlain", err)
	}
	names, _ := d.Names()
	if strings.Join(names, " ") != "linked.json record.json" {
		t.Errorf("entries %v: a temporary file was left", names)
	}
	unchanged()
}

func TestRenames(t *testing.T) {
	d, root := openTemp(t)
	for _, n := range []string{"a", "b"} {
		if err := d.Mkdir(n, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, n, "SKILL.md"), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := fs.FileMode(0o700)
	if runtime.GOOS == "windows" {
		want = 0o777 // Windows keeps only a read-only flag, off here
	}
	if m, err := d.Mode("a"); err != nil || m.Perm() != want || !m.IsDir() {
		t.Errorf("Mkdir made %v, %v; want a folder of mode %v", m, err, want)
	}
	if err := RenameNoReplace(d, "a", d, "b"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("RenameNoReplace over a folder: %v, want fs.ErrExist", err)
	}
	err := Exchange(d, "a", d, "b")
	switch {
	case errors.Is(err, ErrExchangeUnsupported):
	case err != nil:
		t.Fatal(err)
	default:
		if data, _ := os.ReadFile(filepath.Join(root, "a", "SKILL.md")); string(data) != "b" {
			t.Errorf("after the exchange a holds %q", data)
		}
	}
	if err := RenameNoReplace(d, "a", d, "c"); err != nil {
		t.Fatal(err)
	}
	if err := Rename(d, "c", d, "d"); err != nil {
		t.Fatal(err)
	}
	if names, _ := d.Names(); strings.Join(names, " ") != "b d" {
		t.Errorf("entries %v, want b d", names)
	}
}

// symlink makes a symbolic link, or skips the test where this system
// cannot (Windows without the privilege; wine, whose links do not
// appear).
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		if runtime.GOOS == "windows" {
			t.Skip("this account cannot make symbolic links:", err)
		}
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Skip("symbolic links made here do not appear (wine):", err)
	}
}

// OpenBeneath reaches a folder below root only through plain folders: a
// link at any level is refused by name, with create as without, and
// nothing is made on the far side of it.
func TestOpenBeneathRefusesLinksOnTheWay(t *testing.T) {
	root := t.TempDir()
	vdir, unchanged := victim(t)
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := OpenBeneath(root, "a/b", false, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if d.Path() != filepath.Join(root, "a", "b") {
		t.Errorf("path %s", d.Path())
	}
	d.Close()
	d, err = OpenBeneath(root, "a/new/deeper", true, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if fi, err := os.Lstat(filepath.Join(root, "a", "new", "deeper")); err != nil || !fi.IsDir() {
		t.Errorf("create: %v", err)
	}
	if _, err := OpenBeneath(root, "a/missing", false, 0o755); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	symlink(t, vdir, filepath.Join(root, "link"))
	symlink(t, vdir, filepath.Join(root, "a", "b", "link"))
	for _, rel := range []string{"link", "link/sub", "link/made", "a/b/link", "a/b/link/sub/x"} {
		for _, create := range []bool{false, true} {
			d, err := OpenBeneath(root, rel, create, 0o755)
			if err == nil {
				d.Close()
			}
			var np *NotPlainError
			if !errors.As(err, &np) || !strings.HasSuffix(np.Path, "link") {
				t.Errorf("OpenBeneath(%s, create %v): %v, want the link refused by name", rel, create, err)
			}
		}
	}
	for _, rel := range []string{"..", "../x", "/abs", ""} {
		if d, err := OpenBeneath(root, rel, true, 0o755); err == nil && rel != "" {
			d.Close()
			t.Errorf("OpenBeneath(%q) accepted it", rel)
		} else if err == nil {
			d.Close() // "" is "." once cleaned: root itself
		}
	}
	unchanged()
}
