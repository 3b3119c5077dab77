package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionText(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name, version, commit string
		info                  *debug.BuildInfo
		want                  string
	}{
		{"release build", "v1.2.0", "0123456789ab", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, "v1.2.0 (commit 0123456789ab)"},
		{"build from a clean clone", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20250101000000-0123456789ab"}, Settings: vcs(rev, "false")}, "v0.0.0-20250101000000-0123456789ab (commit 0123456789ab)"},
		{"build from a changed clone", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, "dev (commit 0123456789ab+dirty)"},
		{"go install of a tagged module", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}}, "v1.3.0 (commit unknown)"},
		{"no build information", "", "", nil, "dev (commit unknown)"},
	} {
		if got := versionText(c.version, c.commit, c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// Real builds of the binary print their version and commit: a release
// build (make release's -ldflags; its -trimpath is left out, since it
// changes no stamp and would rebuild every dependency) the ones it was given, and a build from
// a clone (go build, as go install ./cmd/skillstore does) the commit Go
// stamped from git, with +dirty once the clone has changes.
func TestVersionOfRealBuilds(t *testing.T) {
	for _, tool := range []string{"go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH", tool)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	run := func(dir, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "skillstore-release")
	run(root, "go", "build", "-tags", "urfave_cli_no_docs", "-ldflags", "-X main.version=v9.8.7 -X main.commit=fedcba987654", "-o", bin, "./cmd/skillstore")
	if got := run(tmp, bin, "--version"); got != "skillstore v9.8.7 (commit fedcba987654)" {
		t.Errorf("release build: %q", got)
	}

	// A clone of the repository's committed state, as a user makes one.
	clone := filepath.Join(tmp, "clone")
	run(tmp, "git", "clone", "-q", "--no-hardlinks", root, clone)
	head := run(clone, "git", "rev-parse", "HEAD")[:12]
	bin = filepath.Join(tmp, "skillstore-clone")
	run(clone, "go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "./cmd/skillstore")
	if got := run(tmp, bin, "--version"); !strings.HasPrefix(got, "skillstore ") || !strings.HasSuffix(got, " (commit "+head+")") {
		t.Errorf("build from a clone at %s: %q", head, got)
	}
	if err := os.WriteFile(filepath.Join(clone, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(clone, "go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "./cmd/skillstore")
	if got := run(tmp, bin, "--version"); !strings.HasSuffix(got, " (commit "+head+"+dirty)") {
		t.Errorf("build from a changed clone at %s: %q", head, got)
	}
}
