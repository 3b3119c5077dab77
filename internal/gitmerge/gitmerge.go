// Package gitmerge runs the real `git merge-file`: the oracle that the merge
// packages' tests compare their results with.
package gitmerge

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// Require skips the test when git is not installed: there is no oracle.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: no oracle")
	}
}

// MergeFile writes the three texts into dir as "base", "ours" and "theirs",
// runs `git merge-file -p` on them with args (labelled ours, base and theirs
// unless args has -L) and returns its output and its exit code: the number
// of conflicts, capped at 127. git's configuration is left out.
func MergeFile(t testing.TB, dir string, base, ours, theirs []byte, args ...string) ([]byte, int) {
	t.Helper()
	for name, data := range map[string][]byte{"base": base, "ours": ours, "theirs": theirs} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	argv := append([]string{"merge-file", "-p"}, args...)
	if !slices.Contains(args, "-L") {
		argv = append(argv, "-L", "ours", "-L", "base", "-L", "theirs")
	}
	argv = append(argv, "ours", "base", "theirs")
	cmd := exec.Command("git", argv...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out, 0
	case errors.As(err, &exit) && exit.ExitCode() < 128:
		return out, exit.ExitCode()
	default:
		t.Fatalf("git merge-file: %v: %s", err, stderr.String())
		return nil, 0
	}
}
