package store

import (
	"bytes"
	"compress/zlib"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/gitdb"
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

// alterLoose writes, as the loose object id (read before a packed copy),
// valid zlib holding a blob of other content: an altered object.
func alterLoose(t *testing.T, dir string, id Hash, content string) {
	t.Helper()
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(append(skillfs.ObjectHeader("blob", len(content)), content...))
	zw.Close()
	p := gitdb.LoosePath(dir, id)
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, z.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
}
