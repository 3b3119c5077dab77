package store

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

func newSyncStore(t testing.TB) *Store {
	t.Helper()
	s, err := Init(context.Background(), filepath.Join(t.TempDir(), "store"), Options{Actor: Signature{Name: "Tester", Email: "t@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// skillMD is a SKILL.md with the given body lines.
func skillMD(name string, lines ...string) string {
	return "---\nname: " + name + "\ndescription: the " + name + " skill\n---\n" + strings.Join(lines, "\n") + "\n"
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

// gitPlumb runs git in dir with stdin and returns its trimmed output.
func gitPlumb(t *testing.T, dir string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func rawEntries(entries ...string) []byte {
	var b bytes.Buffer
	for i := 0; i+2 < len(entries); i += 3 {
		id, _ := skillfs.ParseID(entries[i+2])
		b.WriteString(entries[i] + " " + entries[i+1] + "\x00")
		b.Write(id[:])
	}
	return b.Bytes()
}

// copyStore copies a store directory (cp -a keeps it exact).
func copyStore(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "store")
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	return to
}

// checkStore runs git fsck --strict and the store's own verify.
func checkStore(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-dangling").CombinedOutput()
	if err != nil {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("verify: %v", rep.Problems)
	}
}
