package gitdb

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

func gitOut(t *testing.T, dir string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, stderr.Bytes())
	}
	return out
}

// TestReceivePack stores a pack made by git pack-objects: git then reads
// every object of it, fsck passes, and no quarantine folder remains; a
// truncated pack stores nothing and leaves nothing behind.
func TestReceivePack(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	src := t.TempDir()
	gitOut(t, src, nil, "init", "-q")
	os.WriteFile(filepath.Join(src, "SKILL.md"), []byte("---\nname: a\n---\nbody\n"), 0o644)
	gitOut(t, src, nil, "add", "-A")
	gitOut(t, src, nil, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one")
	head := strings.TrimSpace(string(gitOut(t, src, nil, "rev-parse", "HEAD")))
	revs := gitOut(t, src, []byte(head+"\n"), "rev-list", "--objects", "--stdin")
	pack := gitOut(t, src, revs, "pack-objects", "--stdout", "-q")

	dst := filepath.Join(t.TempDir(), "dst.git")
	gitOut(t, "", nil, "init", "-q", "--bare", dst)
	if err := ReceivePack(dst, bytes.NewReader(pack[:len(pack)/2])); err == nil {
		t.Fatal("a truncated pack was stored")
	}
	assertNoLeftovers(t, dst, 0)

	if err := ReceivePack(dst, bytes.NewReader(pack)); err != nil {
		t.Fatal(err)
	}
	assertNoLeftovers(t, dst, 1)
	if got := strings.TrimSpace(string(gitOut(t, dst, nil, "cat-file", "-t", head))); got != "commit" {
		t.Fatalf("git reads the received commit as %q", got)
	}
	gitOut(t, dst, nil, "fsck", "--strict", "--no-dangling")
	db := Open(dst)
	defer db.Close()
	if !db.Has(mustID(t, head)) {
		t.Error("gitdb does not find the received commit")
	}
}

func mustID(t *testing.T, s string) ID {
	t.Helper()
	id, err := skillfs.ParseID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// assertNoLeftovers checks that objects/ holds no quarantine folder and
// objects/pack exactly packs complete pack/index pairs.
func assertNoLeftovers(t *testing.T, gitDir string, packs int) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(gitDir, "objects"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), quarantinePrefix) {
			t.Errorf("quarantine %s left behind", e.Name())
		}
	}
	var idx, pck int
	files, _ := os.ReadDir(filepath.Join(gitDir, "objects", "pack"))
	for _, f := range files {
		switch filepath.Ext(f.Name()) {
		case ".idx":
			idx++
		case ".pack":
			pck++
		}
	}
	if idx != packs || pck != packs {
		t.Errorf("objects/pack holds %d indexes and %d packs, want %d of each", idx, pck, packs)
	}
}
