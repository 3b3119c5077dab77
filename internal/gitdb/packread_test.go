package gitdb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// The tests in this file read packs that real git wrote (deltas against
// offsets and against object ids, damaged packs and indexes) and compare
// every object with what git cat-file gives.

func gitRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// catFileAll returns every object of the repository at dir as real git
// reads it.
func catFileAll(t *testing.T, dir string) map[ID]Object {
	t.Helper()
	out := gitRun(t, dir, "cat-file", "--batch-all-objects", "--batch")
	objs := map[ID]Object{}
	rd := bufio.NewReader(strings.NewReader(out))
	for {
		header, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		f := strings.Fields(header)
		h, ok := parseID(f[0])
		size, err := strconv.Atoi(f[2])
		typ, err2 := ParseObjectType(f[1])
		if !ok || err != nil || err2 != nil {
			t.Fatalf("bad cat-file header %q", header)
		}
		data := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(rd, data); err != nil {
			t.Fatal(err)
		}
		objs[h] = Object{Type: typ, Data: data[:size]}
	}
	return objs
}

// repoWithHistory makes a git repository with 40 commits of files that
// change a little each time, so a repack stores most of them as deltas,
// and returns its git directory. git fast-import writes the history, in
// one process and one pack, which the tests repack or explode as they
// need.
func repoWithHistory(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "--bare")
	var in strings.Builder
	file := func(path, content string) {
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
	}
	for v := range 40 {
		msg := fmt.Sprintf("edit %d\n", v)
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter t <t@example.com> %d +0000\ndata %d\n%s", 1700000000+v, len(msg), msg)
		file("SKILL.md", "---\nname: hist\n---\n"+strings.Repeat("a line that stays the same\n", 30)+fmt.Sprintf("version %d\n", v))
		file("scripts/run.py", strings.Repeat("print(1)\n", 50+v))
		file("empty.txt", "")
		in.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	gitRun(t, dir, "symbolic-ref", "HEAD", "refs/heads/main")
	return dir
}

// explode turns the packs of the repository at dir into loose objects.
func explode(t *testing.T, dir string) {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	for _, p := range packs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		os.Remove(strings.TrimSuffix(p, ".pack") + ".idx")
		cmd := exec.Command("git", "unpack-objects", "-q")
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git unpack-objects: %v\n%s", err, out)
		}
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPackReaderMatchesGit repacks a repository the way a store's gc and
// git do (deltas against offsets, and against object ids) and reads every
// object with the pack reader: the content must be what git cat-file
// gives.
func TestPackReaderMatchesGit(t *testing.T) {
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"ofs-delta", []string{"repack", "-a", "-d", "-f", "-q", "--depth=50", "--window=50"}},
		{"ref-delta", []string{"-c", "repack.useDeltaBaseOffset=false", "repack", "-a", "-d", "-f", "-q", "--depth=50", "--window=50"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			dir := repoWithHistory(t)
			gitRun(t, dir, mode.args...)
			if out := gitRun(t, dir, "count-objects", "-v"); !strings.Contains(out, "count: 0\n") {
				t.Fatalf("objects left loose after repack:\n%s", out)
			}
			idxs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.idx"))
			if len(idxs) != 1 {
				t.Fatalf("packs: %v", idxs)
			}
			verify := gitRun(t, dir, "verify-pack", "-v", idxs[0])
			if !strings.Contains(verify, "chain length = ") {
				t.Fatalf("the pack holds no deltas, the test would prove nothing:\n%s", verify)
			}
			want := catFileAll(t, dir)
			db := Open(dir)
			defer db.Close()
			err := func() error {
				for h, w := range want {
					got, ok, err := db.ReadPacked(h, db.Read)
					if !ok || err != nil {
						return fmt.Errorf("%s: ok=%v err=%v", h, ok, err)
					}
					if got.Type != w.Type || !bytes.Equal(got.Data, w.Data) {
						return fmt.Errorf("%s: got %s of %d bytes, want %s of %d bytes", h, got.Type, len(got.Data), w.Type, len(w.Data))
					}
					if n, err := db.Size(h); err != nil || n != int64(len(w.Data)) {
						return fmt.Errorf("%s: size %d, %v; want %d", h, n, err, len(w.Data))
					}
				}
				missing := skillfs.BlobID([]byte("not in the store"))
				if _, ok, _ := db.ReadPacked(missing, db.Read); ok {
					return errors.New("packed found an object the store does not have")
				}
				if _, err := db.Read(missing); !errors.Is(err, ErrObjectNotFound) {
					return fmt.Errorf("reading a missing object: %v", err)
				}
				return nil
			}()
			if err != nil {
				t.Fatal(err)
			}
			if len(want) < 100 {
				t.Fatalf("only %d objects", len(want))
			}
		})
	}
}

// TestPackReaderBadIndex: a pack whose index does not match it is not
// opened (the store leaves it to go-git).
func TestPackReaderBadIndex(t *testing.T) {
	dir := repoWithHistory(t)
	gitRun(t, dir, "repack", "-a", "-d", "-q")
	idxs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("packs: %v", idxs)
	}
	if _, err := openPackFile(strings.TrimSuffix(idxs[0], ".idx")); err != nil {
		t.Fatalf("a good pack: %v", err)
	}
	data, err := os.ReadFile(idxs[0])
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-30] ^= 0xff // the pack checksum the index records
	os.Chmod(idxs[0], 0o644)
	if err := os.WriteFile(idxs[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := openPackFile(strings.TrimSuffix(idxs[0], ".idx")); err == nil {
		t.Fatal("a pack whose index does not match was opened")
	}
}

func TestApplyDeltaRejectsBadInput(t *testing.T) {
	base := []byte("hello, world")
	good := []byte{12, 5, 0x90, 5} // sizes 12 -> 5, copy 5 bytes from offset 0
	if out, err := applyDelta(base, good); err != nil || string(out) != "hello" {
		t.Fatalf("good delta: %q, %v", out, err)
	}
	for name, d := range map[string][]byte{
		"wrong base size":   {11, 5, 0x90, 5},
		"copy past base":    {12, 5, 0x91, 10, 5},
		"longer than said":  {12, 2, 0x90, 5},
		"shorter than said": {12, 9, 0x90, 5},
		"zero opcode":       {12, 1, 0},
		"truncated insert":  {12, 3, 3, 'a'},
		"no sizes":          {},
	} {
		if _, err := applyDelta(base, d); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzApplyDelta: a delta read from a damaged pack must give an error,
// never a panic or an object of another size than the delta says.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("hello, world"), []byte{12, 5, 0x90, 5})
	f.Add([]byte("abc"), []byte{3, 6, 0x90, 3, 3, 'x', 'y', 'z'})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta)
		if err == nil && out == nil {
			t.Fatal("no error and no object")
		}
	})
}

// TestPackReaderDamagedPack: bytes damaged inside a pack give errors, never
// a panic. (Like git, the reader does not hash what it reads: a damaged
// entry header can still pass for another object; git fsck and verify are
// what find those.)
func TestPackReaderDamagedPack(t *testing.T) {
	dir := repoWithHistory(t)
	gitRun(t, dir, "repack", "-a", "-d", "-q", "--depth=50", "--window=50")
	want := catFileAll(t, dir)
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	data, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 12; i < len(data)-20; i += 97 {
		data[i] ^= 0x5a
	}
	os.Chmod(packs[0], 0o644)
	if err := os.WriteFile(packs[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	failed := 0
	db := Open(dir)
	defer db.Close()
	err = func() error {
		for h := range want {
			if _, ok, err := db.ReadPacked(h, db.Read); !ok {
				return fmt.Errorf("%s not found", h)
			} else if err != nil {
				failed++
			}
			if _, err := db.Read(h); err != nil && !strings.Contains(err.Error(), h.String()) {
				return fmt.Errorf("the error does not name the object: %v", err)
			}
		}
		return nil
	}()
	if err != nil {
		t.Fatal(err)
	}
	if failed == 0 {
		t.Fatal("no read failed in a damaged pack")
	}
}
