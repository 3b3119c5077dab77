package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/skillstore/skillstore/store/manifest"
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

func localFS(t testing.TB, dir string) manifest.PluginFS {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root.FS().(manifest.PluginFS)
}

// summary renders a layout compactly: "plugin@version[manifest]: skill=path ...".
func summary(l *manifest.Layout) []string {
	var out []string
	for _, p := range l.Plugins {
		s := p.Name + "@" + p.Version + "[" + p.Manifest + "] root=" + p.Root + ":"
		for _, sk := range p.Skills {
			s += " " + sk.Name + "=" + sk.Path
		}
		out = append(out, s)
	}
	for _, sk := range l.Skipped {
		out = append(out, "skipped "+sk.Name)
	}
	return out
}

const skill = "---\nname: x\ndescription: d\n---\nbody\n"

// layoutCase is a plugin source of store/manifest's layout tests
// (manifest/testdata/layout/*.txtar), for the tests here that read a source
// another way and must find the same layout.
type layoutCase struct {
	name     string
	fixture  string // a txtar archive of the source's files
	selector string
}

// readLayoutCases reads the sources and selectors of manifest's layout
// cases; what each must give is checked by manifest's TestReadLayout.
func readLayoutCases(t testing.TB) []layoutCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("manifest", "testdata", "layout", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no layout cases: %v", err)
	}
	var cases []layoutCase
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tc := layoutCase{name: filepath.Base(p)}
		for _, line := range strings.Split(string(a.Comment), "\n") {
			if sel, ok := strings.CutPrefix(line, "selector: "); ok {
				tc.selector = sel
			}
		}
		a.Comment = nil
		tc.fixture = string(txtar.Format(a))
		cases = append(cases, tc)
	}
	return cases
}
