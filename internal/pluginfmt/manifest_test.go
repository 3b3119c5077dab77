package pluginfmt_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/pluginfmt"
)

// layoutCase is one file of testdata/layout: a source's files, and in the
// archive's comment the selector and the expected layout or error.
type layoutCase struct {
	name     string
	fixture  *txtar.Archive
	selector string
	want     []string
	wantErr  string // substring of the error
	escapes  bool   // the error wraps ErrPathEscapes
	rootName string // Options.RootName
	kind     string // the first plugin's layout kind, when given
}

// readLayoutCases reads testdata/layout/*.txtar. Comment lines are
// "# name", "selector: S", "want: SUMMARY LINE" (one per plugin or skipped
// entry, see summary), "error: SUBSTRING" and "escapes: true".
func readLayoutCases(t testing.TB) []layoutCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "layout", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no layout cases: %v", err)
	}
	var cases []layoutCase
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tc := layoutCase{name: filepath.Base(p), fixture: a}
		for _, line := range strings.Split(strings.TrimSpace(string(a.Comment)), "\n") {
			key, value, _ := strings.Cut(line, ": ")
			switch {
			case strings.HasPrefix(line, "# "):
				tc.name = strings.TrimPrefix(line, "# ")
			case key == "selector":
				tc.selector = value
			case key == "want":
				tc.want = append(tc.want, value)
			case key == "error":
				tc.wantErr = value
			case key == "escapes":
				tc.escapes = value == "true"
			case key == "rootname":
				tc.rootName = value
			case key == "kind":
				tc.kind = value
			default:
				t.Fatalf("%s: unknown comment line %q", p, line)
			}
		}
		if (tc.want == nil) == (tc.wantErr == "") {
			t.Fatalf("%s: give either want lines or an error", p)
		}
		cases = append(cases, tc)
	}
	return cases
}

// writeFixture writes a txtar archive into dir. A file named NAME.symlink
// becomes a symlink NAME pointing at the file's first line, so fixtures can
// hold the symlinks a real repository may contain.
func writeFixture(t testing.TB, dir string, a *txtar.Archive) {
	t.Helper()
	for _, f := range a.Files {
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

// gitTreeFS makes dir a git repository with everything committed, using
// the real git CLI, and returns the commit's tree as the store reads it.
func gitTreeFS(t testing.TB, dir string) pluginfmt.PluginFS {
	t.Helper()
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "fixture")
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := repo.Reference(plumbing.NewBranchReferenceName("main"), true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.CommitObject(ref.Hash())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	return gitfetch.NewTreeFS(repo.Storer, tree)
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
		for _, sk := range p.LeftOut {
			s += " !" + sk.Name + "=" + sk.Path
		}
		out = append(out, s)
	}
	for _, sk := range l.Skipped {
		out = append(out, "skipped "+sk.Name)
	}
	for _, r := range l.Remote {
		s := fmt.Sprintf("remote %s line %d: %s %s%s", r.Name, r.Line, r.Kind, r.Repo, r.URL)
		if r.Path != "" {
			s += " path=" + r.Path
		}
		if r.Pin() != "" {
			s += " pin=" + r.Pin()
		}
		if r.Skills != nil {
			s += " skills=" + strings.Join(r.Skills, ",")
		}
		out = append(out, s)
	}
	for _, f := range l.Failed {
		out = append(out, "failed "+f.Error())
	}
	var renames []string
	for old, nu := range l.Renames {
		renames = append(renames, "rename "+old+" -> "+nu)
	}
	sort.Strings(renames)
	return append(out, renames...)
}

// TestReadLayout reads every fixture both from a local folder and from the
// tree of a real git commit of it: the two must agree.
func TestReadLayout(t *testing.T) {
	for _, tc := range readLayoutCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "src")
			writeFixture(t, dir, tc.fixture)
			sources := map[string]pluginfmt.PluginFS{"folder": localFS(t, dir), "git": gitTreeFS(t, dir)}
			for kind, fsys := range sources {
				got, err := pluginfmt.Read(fsys, pluginfmt.Options{Selector: tc.selector, RootName: tc.rootName})
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("%s: error = %v, want it to contain %q", kind, err, tc.wantErr)
					}
					if tc.escapes != errors.Is(err, pluginfmt.ErrPathEscapes) {
						t.Errorf("%s: errors.Is(err, ErrPathEscapes) = %v", kind, !tc.escapes)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", kind, err)
				}
				if s := summary(got); !reflect.DeepEqual(s, tc.want) {
					t.Errorf("%s: layout\n got %q\nwant %q", kind, s, tc.want)
				}
				if tc.kind != "" && (len(got.Plugins) == 0 || string(got.Plugins[0].Kind) != tc.kind) {
					t.Errorf("%s: kind = %+v, want %s", kind, got.Plugins, tc.kind)
				}
			}
		})
	}
}
