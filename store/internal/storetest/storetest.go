// Package storetest holds the fixtures the tests of store's packages
// share: an empty store, skill folders, git repositories made with the
// real git CLI. It imports package store only, so that the tests of
// store/plugins, store/pluginsync and store/candidates (and the external
// tests of store) can all use it; store's own internal tests keep their
// own copies, since they cannot import a package that imports store.
package storetest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// Skill is a minimal valid SKILL.md of a skill named x.
const Skill = "---\nname: x\ndescription: d\n---\nbody\n"

// NewStore creates an empty store in a temporary directory, whose actor
// is "Tester <tester@example.com>".
func NewStore(t testing.TB) *store.Store {
	t.Helper()
	s, err := store.Init(context.Background(), filepath.Join(t.TempDir(), "store"), store.Options{
		Actor: store.Signature{Name: "Tester", Email: "tester@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// WriteSkill writes a skill folder dir/name with a SKILL.md and extra
// files (a path ending in .sh is executable), and returns its path.
func WriteSkill(t testing.TB, dir, name, desc string, extra map[string]string) string {
	t.Helper()
	skill := filepath.Join(dir, name)
	files := map[string]string{"SKILL.md": "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n# " + name + "\n\nDo the thing.\n"}
	for k, v := range extra {
		files[k] = v
	}
	for p, content := range files {
		full := filepath.Join(skill, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	return skill
}

// DefaultAdd are the options the CLI's add passes by default.
func DefaultAdd() store.AddOptions {
	return store.AddOptions{AllowRisk: safety.DefaultAllowedRisk, Validation: discover.Lenient}
}

// SkillMD is a SKILL.md of skill name with the given body lines.
func SkillMD(name string, lines ...string) string {
	return "---\nname: " + name + "\ndescription: the " + name + " skill\n---\n" + strings.Join(lines, "\n") + "\n"
}

// WriteFile writes content at path, making its folders.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteFixture writes a txtar archive into dir. A file named NAME.symlink
// becomes a symlink NAME pointing at the file's first line, so fixtures
// can hold the symlinks a real repository may contain.
func WriteFixture(t testing.TB, dir, archive string) {
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

// Git runs the git CLI in dir, with no system or global configuration,
// and returns its output; the test is skipped when git is not installed.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// GitCommitAll commits everything in dir (initialising it on the first
// call) and returns the commit id.
func GitCommitAll(t testing.TB, dir, msg string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		Git(t, dir, "init", "-q", "-b", "main")
	}
	Git(t, dir, "add", "-A")
	Git(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", msg)
	return strings.TrimSpace(Git(t, dir, "rev-parse", "HEAD"))
}

// GitPlumb runs git in dir with stdin and returns its trimmed output.
func GitPlumb(t testing.TB, dir string, stdin []byte, args ...string) string {
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

// RawEntries encodes tree entries given as mode, name and hex id triples,
// as a tree object holds them (git hash-object --literally -t tree takes
// them so).
func RawEntries(entries ...string) []byte {
	var b bytes.Buffer
	for i := 0; i+2 < len(entries); i += 3 {
		id, _ := skillfs.ParseID(entries[i+2])
		b.WriteString(entries[i] + " " + entries[i+1] + "\x00")
		b.Write(id[:])
	}
	return b.Bytes()
}

// UpstreamRepo makes a git repository with two commits on main, an
// annotated tag v1 on the first and a branch dev, using the real git CLI.
// It returns the folder and the two commit ids.
func UpstreamRepo(t testing.TB) (dir, first, second string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "upstream")
	WriteFixture(t, dir, "-- skills/a/SKILL.md --\n"+Skill)
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "add", "-A")
	commit := func(msg string) string {
		Git(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", msg)
		return strings.TrimSpace(Git(t, dir, "rev-parse", "HEAD"))
	}
	first = commit("first")
	Git(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "tag", "-a", "-m", "v1", "v1")
	Git(t, dir, "branch", "dev")
	if err := os.WriteFile(filepath.Join(dir, "skills", "a", "SKILL.md"), []byte(Skill+"more\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "add", "-A")
	second = commit("second")
	return dir, first, second
}

// HeadOf is the latest version of skill.
func HeadOf(t testing.TB, s *store.Store, skill string) store.Version {
	t.Helper()
	var v store.Version
	err := s.View(context.Background(), func(r *store.Reader) error {
		var err error
		v, err = r.Head(skill)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// LocalEdit publishes a managed version of skill with SKILL.md replaced.
func LocalEdit(t testing.TB, s *store.Store, skill, content string) {
	t.Helper()
	LocalEditFile(t, s, skill, "SKILL.md", content)
}

// LocalEditFile publishes a local version of skill (or a plugin's parts
// unit) with the file at path replaced by content.
func LocalEditFile(t testing.TB, s *store.Store, skill, path, content string) {
	t.Helper()
	err := s.Update(context.Background(), func(tx *store.Tx) error {
		head, err := tx.Head(skill)
		if err != nil {
			return err
		}
		files, err := tx.LoadFiles(head.Tree)
		if err != nil {
			return err
		}
		for i := range files {
			if files[i].Path == path {
				files[i].Data, files[i].ID = []byte(content), store.ZeroHash
			}
		}
		tree, err := tx.WriteTree(files)
		if err != nil {
			return err
		}
		_, err = tx.CommitVersion(skill, tree, store.VersionInfo{Reason: "local edit"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// NeedGit skips a benchmark when git, the reference it compares with, is
// not installed.
func NeedGit(b *testing.B) {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed: no reference to compare with")
	}
}

// RunGit runs git in dir with stdin (nil: none), with no system or global
// configuration.
func RunGit(b testing.TB, dir string, stdin []byte, args ...string) {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// BenchGit is RunGit as the author "Bench <bench@example.com>".
func BenchGit(b *testing.B, dir string, stdin []byte, args ...string) {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// BenchReport reports skillstore's time as ns/op, the reference's (git
// doing the same work) as ref-ns/op, and their ratio.
func BenchReport(b *testing.B, ours, ref time.Duration) {
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(ref.Nanoseconds())/float64(b.N), "ref-ns/op")
	b.ReportMetric(float64(ours)/float64(ref), "ratio")
}

// CopyStore copies a store directory (cp -a keeps it exact).
func CopyStore(t testing.TB, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "store")
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	return to
}

// CheckStore runs git fsck --strict and the store's own verify on the
// store at dir.
func CheckStore(t testing.TB, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-dangling").CombinedOutput()
	if err != nil {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
	s, err := store.Open(context.Background(), dir, store.Options{})
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
