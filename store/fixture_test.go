package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// writeFixture writes a txtar archive into dir. A file named NAME.symlink
// becomes a symlink NAME pointing at the file's first line, so fixtures can
// hold the symlinks a real repository may contain.
func writeFixture(t testing.TB, dir, archive string) {
	t.Helper()
	for _, f := range txtar.Parse([]byte(archive)).Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if link, ok := strings.CutSuffix(p, ".symlink"); ok {
			if err := os.Symlink(strings.TrimSpace(string(f.Data)), link); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

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

const skill = "---\nname: x\ndescription: d\n---\nbody\n"
