package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

type entry struct {
	name string
	typ  byte
	mode int64
	data string
}

func tarGz(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: e.mode, Size: int64(len(e.data))}
		if e.typ == tar.TypeSymlink {
			h.Linkname, h.Size = e.data, 0
		}
		if e.typ == tar.TypeDir || e.typ == tar.TypeFifo {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write([]byte(e.data))
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestUnpackTarGz(t *testing.T) {
	data := tarGz(t,
		entry{"pkg-1.0/", tar.TypeDir, 0o755, ""},
		entry{"pkg-1.0/skills/a/SKILL.md", tar.TypeReg, 0o644, "---\nname: a\n---\n"},
		entry{"pkg-1.0/skills/a/run.sh", tar.TypeReg, 0o755, "echo"},
		entry{"pkg-1.0/skills/a/link", tar.TypeSymlink, 0o777, "../../etc/passwd"},
		entry{"pkg-1.0/skills/a/fifo", tar.TypeFifo, 0o644, ""},
	)
	tree, err := Unpack(data, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]skillfs.Mode{}
	for _, f := range tree.Files {
		got[f.Path] = f.Mode
	}
	want := map[string]skillfs.Mode{"skills/a/SKILL.md": skillfs.Regular, "skills/a/run.sh": skillfs.Executable, "skills/a/link": skillfs.Symlink}
	if len(got) != len(want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	for p, m := range want {
		if got[p] != m {
			t.Errorf("%s: mode %v, want %v", p, got[p], m)
		}
	}
	if len(tree.LeftOut) != 1 || !strings.Contains(tree.LeftOut[0], "pkg-1.0/skills/a/fifo") {
		t.Errorf("left out %v, want the FIFO", tree.LeftOut)
	}
}

func TestUnpackRefuses(t *testing.T) {
	small := Limits{MaxFiles: 2, MaxFileBytes: 10, MaxBytes: 15}
	cases := map[string]struct {
		data []byte
		want string
	}{
		"dot-dot":   {tarGz(t, entry{"a/../../x", tar.TypeReg, 0o644, "x"}), "not a clean"},
		"absolute":  {tarGz(t, entry{"/etc/x", tar.TypeReg, 0o644, "x"}), "not a clean"},
		"dot-git":   {tarGz(t, entry{"a/.git/config", tar.TypeReg, 0o644, "x"}), `component ".git"`},
		"twice":     {tarGz(t, entry{"a", tar.TypeReg, 0o644, "x"}, entry{"a", tar.TypeReg, 0o644, "y"}), "twice"},
		"big file":  {tarGz(t, entry{"a", tar.TypeReg, 0o644, strings.Repeat("x", 11)}), "more than the 0 MiB"},
		"too many":  {tarGz(t, entry{"a", tar.TypeReg, 0o644, "x"}, entry{"b", tar.TypeReg, 0o644, "x"}, entry{"c", tar.TypeReg, 0o644, "x"}), "more than 2 files"},
		"too large": {tarGz(t, entry{"a", tar.TypeReg, 0o644, strings.Repeat("x", 9)}, entry{"b", tar.TypeReg, 0o644, strings.Repeat("x", 9)}), "unpacks to more than"},
		"no format": {[]byte("hello"), "not a tar.gz or zip"},
	}
	for name, c := range cases {
		_, err := Unpack(c.data, small)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
}

func TestUnpackZip(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range map[string]string{"top/SKILL.md": "x", "top/refs/a.md": "y"} {
		w, _ := zw.Create(name)
		w.Write([]byte(data))
	}
	w, _ := zw.Create("../evil")
	w.Write([]byte("z"))
	zw.Close()
	if _, err := Unpack(buf.Bytes(), DefaultLimits); err == nil || !strings.Contains(err.Error(), `"../evil"`) {
		t.Fatalf("a zip leaving its top: %v", err)
	}
	buf.Reset()
	zw = zip.NewWriter(&buf)
	for _, name := range []string{"top/SKILL.md", "top/refs/a.md"} {
		w, _ := zw.Create(name)
		w.Write([]byte(name))
	}
	zw.Close()
	tree, err := Unpack(buf.Bytes(), DefaultLimits)
	if err != nil || len(tree.Files) != 2 || tree.Files[0].Path != "SKILL.md" {
		t.Fatalf("zip: %v %+v", err, tree)
	}
}

func TestBase(t *testing.T) {
	for in, want := range map[string]string{"/a/acme-skills.tar.gz": "acme-skills", "/x.TGZ": "x", "/r/v1.zip": "v1", "/plain": "plain"} {
		if got := Base(in); got != want {
			t.Errorf("Base(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzUnpack holds Unpack to its contract on any bytes: no panic, and
// every file it returns has a path a store can hold.
func FuzzUnpack(f *testing.F) {
	f.Add([]byte("PK\x03\x04"))
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, err := Unpack(data, Limits{MaxFiles: 100, MaxFileBytes: 1 << 16, MaxBytes: 1 << 20})
		if err != nil {
			return
		}
		for _, f := range tree.Files {
			if err := skillfs.CheckPath(f.Path); err != nil {
				t.Fatalf("unpacked path %q: %v", f.Path, err)
			}
		}
	})
}
