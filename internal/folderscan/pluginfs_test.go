package folderscan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skillstore/skillstore/internal/pluginfmt"
)

// TestFolderLayoutMatchesRoot reads every layout fixture through PluginFS (the
// sync's folder view), with a cold and with a warm stat cache, and through plain
// os.Root: layouts and errors must be the same.
func TestFolderLayoutMatchesRoot(t *testing.T) {
	base := t.TempDir()
	layoutCases := readLayoutCases(t)
	for i, tc := range layoutCases {
		writeFixture(t, filepath.Join(base, strconv.Itoa(i), "src"), tc.fixture)
	}
	time.Sleep(RacyWindow + 10*time.Millisecond)
	cache := LoadStatCache(filepath.Join(t.TempDir(), "statcache"))
	render := func(l *pluginfmt.Layout, err error) string {
		if err != nil {
			return fmt.Sprintf("error %v (escapes=%v)", err, errors.Is(err, pluginfmt.ErrPathEscapes))
		}
		return strings.Join(summary(l), "\n")
	}
	for i, tc := range layoutCases {
		dir := filepath.Join(base, strconv.Itoa(i), "src")
		want := render(pluginfmt.ReadLayout(localFS(t, dir), tc.selector))
		for _, pass := range []string{"cold", "warm"} {
			fsys := NewPluginFS(localFS(t, dir), dir, cache)
			if got := render(pluginfmt.ReadLayout(fsys, tc.selector)); got != want {
				t.Errorf("%s, %s cache:\n got %s\nwant %s", tc.name, pass, got, want)
			}
		}
	}
}

// layoutCase is a plugin source of internal/pluginfmt's layout tests
// (internal/pluginfmt/testdata/layout/*.txtar), for the tests here that read a source
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
	paths, err := filepath.Glob(filepath.Join("..", "pluginfmt", "testdata", "layout", "*.txtar"))
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

func localFS(t testing.TB, dir string) pluginfmt.PluginFS {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root.FS().(pluginfmt.PluginFS)
}

// summary renders a layout compactly: "plugin@version[manifest]: skill=path ...".
func summary(l *pluginfmt.Layout) []string {
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
