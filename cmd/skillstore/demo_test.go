package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoRuns runs 'make demo”s script with the binary under test: the
// README's first command must keep working, and its story must still be
// told (the edited skill becomes a clean candidate, the store verifies).
func TestDemoRuns(t *testing.T) {
	requireGit(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found: the demo script needs it")
	}
	cmd := exec.Command(bash, filepath.Join("..", "..", "testdata", "demo", "demo.sh"), skillstoreBin(t))
	cmd.Env = append(cmd.Environ(), "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo.sh: %v\n%s", err, out)
	}
	for _, want := range []string{
		"example:code-review: three-way, candidate",
		"published example:code-review@v3",
		"ok: 3 skills",
		"demo done",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
