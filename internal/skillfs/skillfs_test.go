package skillfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTreeIDMatchesGit checks that TreeID gives the id `git write-tree`
// computes for the same folder, with nested folders, an executable and a
// symlink, and names whose order depends on git's "folder sorts with a
// trailing slash" rule.
func TestTreeIDMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	files := []File{
		{Path: "SKILL.md", Mode: Regular, Data: []byte("---\nname: x\n---\nbody\n")},
		{Path: "a.b", Mode: Regular, Data: []byte("dot\n")},
		{Path: "a/b.txt", Mode: Regular, Data: []byte("nested\n")},
		{Path: "a-c", Mode: Regular, Data: []byte("dash\n")},
		{Path: "scripts/run.sh", Mode: Executable, Data: []byte("#!/bin/sh\necho hi\n")},
		{Path: "link", Mode: Symlink, Data: []byte("SKILL.md")},
		{Path: "empty", Mode: Regular, Data: []byte{}},
	}
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch f.Mode {
		case Symlink:
			err = os.Symlink(string(f.Data), p)
		case Executable:
			err = os.WriteFile(p, f.Data, 0o755)
		default:
			err = os.WriteFile(p, f.Data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	want := git("write-tree")
	got, err := TreeID(files)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want {
		t.Fatalf("TreeID = %s, git write-tree = %s", got, want)
	}
	if blob := git("hash-object", "scripts/run.sh"); BlobID(files[4].Data).String() != blob {
		t.Fatalf("BlobID = %s, git hash-object = %s", BlobID(files[4].Data), blob)
	}
}

func TestBuildTreeRefusesBadInput(t *testing.T) {
	ok := []byte("x")
	for _, tc := range []struct {
		name  string
		files []File
		want  string
	}{
		{"twice", []File{{Path: "a", Data: ok}, {Path: "a", Data: ok}}, "used twice"},
		{"file and folder", []File{{Path: "a", Data: ok}, {Path: "a/b", Data: ok}}, "used twice"},
		{"dotdot", []File{{Path: "../a", Data: ok}}, "not allowed"},
		{"git folder", []File{{Path: ".GIT/config", Data: ok}}, "not allowed"},
		{"backslash", []File{{Path: `a\b`, Data: ok}}, "not a clean"},
		{"special", []File{{Path: "fifo", Mode: Special, Data: ok}}, "only regular files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TreeID(tc.files)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("TreeID error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseTreeRoundTrip(t *testing.T) {
	entries := []TreeEntry{
		{Name: "b", Mode: Regular, ID: BlobID([]byte("b"))},
		{Name: "a", Mode: Dir, ID: HashObject("tree", nil)},
		{Name: "run", Mode: Executable, ID: BlobID([]byte("r"))},
		{Name: "l", Mode: Symlink, ID: BlobID([]byte("t"))},
	}
	got, err := ParseTree(EncodeTree(entries))
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(got))
	for i, e := range got {
		names[i] = e.Name + ":" + e.Mode.GitMode()
	}
	if strings.Join(names, " ") != "a:40000 b:100644 l:120000 run:100755" {
		t.Fatalf("round trip gave %v", names)
	}
	if _, err := ParseTree([]byte("100645 x\x00")); err == nil {
		t.Fatal("a bad mode was accepted")
	}
}

func TestIgnored(t *testing.T) {
	for p, want := range map[string]bool{
		"SKILL.md":                      false,
		"notes.md~":                     true,
		".DS_Store":                     true,
		"refs/.DS_Store":                true,
		"node_modules/x/index.js":       true,
		"scripts/__pycache__/a.pyc":     true,
		".skillstore/record.json":       true,
		".skillstore-staging-1/x":       true,
		".git/config":                   true,
		".SKILL.md.swp":                 true,
		"#SKILL.md#":                    true,
		".#SKILL.md":                    true,
		"4913":                          true,
		"SKILL.md___jb_tmp___":          true,
		"references/guide.md":           false,
		"scripts/node_modules_notes.md": false,
		"tilde~dir/file":                false,
	} {
		if got := Ignored(p); got != want {
			t.Errorf("Ignored(%q) = %v, want %v", p, got, want)
		}
	}
	for _, tc := range []struct {
		name  string
		isDir bool
		want  bool
	}{
		{"notes.md~", false, true}, {"tilde~dir", true, false}, {"node_modules", true, true},
		{".DS_Store", false, true}, {"SKILL.md", false, false}, {".skillstore-staging", true, true},
	} {
		if got := IgnoredEntry(tc.name, tc.isDir); got != tc.want {
			t.Errorf("IgnoredEntry(%q, %v) = %v, want %v", tc.name, tc.isDir, got, tc.want)
		}
	}
	kept := WithoutIgnored([]File{{Path: "SKILL.md"}, {Path: "a~"}, {Path: "b"}})
	if len(kept) != 2 || kept[0].Path != "SKILL.md" || kept[1].Path != "b" {
		t.Fatalf("WithoutIgnored = %v", kept)
	}
}

func TestIDText(t *testing.T) {
	var zero ID
	if b, _ := zero.MarshalText(); len(b) != 0 {
		t.Fatalf("zero id marshals as %q", b)
	}
	id := BlobID([]byte("x"))
	b, _ := id.MarshalText()
	var back ID
	if err := back.UnmarshalText(b); err != nil || back != id {
		t.Fatalf("round trip: %v %v", back, err)
	}
	if _, err := ParseID("xyz"); err == nil {
		t.Fatal("ParseID accepted a short id")
	}
}
