package store

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// localEdit publishes a managed version of skill with SKILL.md replaced.
func localEdit(t testing.TB, s *Store, skill, content string) {
	t.Helper()
	err := s.Update(context.Background(), func(tx *Tx) error {
		head, err := tx.Head(skill)
		if err != nil {
			return err
		}
		files, err := tx.LoadFiles(head.Tree)
		if err != nil {
			return err
		}
		for i := range files {
			if files[i].Path == "SKILL.md" {
				files[i].Data, files[i].ID = []byte(content), ZeroHash
			}
		}
		tree, err := tx.WriteTree(files)
		if err != nil {
			return err
		}
		_, err = tx.CommitVersion(skill, tree, VersionInfo{Reason: "local edit"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func headOf(t testing.TB, s *Store, skill string) Version {
	t.Helper()
	var v Version
	err := s.View(context.Background(), func(r *Reader) error {
		var err error
		v, err = r.Head(skill)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// gitCommitAll commits everything in dir (initialising it on the first
// call) and returns the commit id.
func gitCommitAll(t testing.TB, dir, msg string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		gitRun(t, dir, "init", "-q", "-b", "main")
	}
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", msg)
	return strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
}

// upstreamRepo makes a git repository with two commits on main, an annotated
// tag v1 on the first and a branch dev, using the real git CLI. It returns
// the folder and the two commit ids.
func upstreamRepo(t *testing.T) (dir, first, second string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "upstream")
	writeFixture(t, dir, "-- skills/a/SKILL.md --\n"+skill)
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	commit := func(msg string) string {
		gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", msg)
		return strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	}
	first = commit("first")
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "tag", "-a", "-m", "v1", "v1")
	gitRun(t, dir, "branch", "dev")
	if err := os.WriteFile(filepath.Join(dir, "skills", "a", "SKILL.md"), []byte(skill+"more\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "add", "-A")
	second = commit("second")
	return dir, first, second
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

func runGit(b testing.TB, dir string, stdin []byte, args ...string) {
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

func needGit(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed: no reference to compare with")
	}
}

func report(b *testing.B, ours, ref time.Duration) {
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(ref.Nanoseconds())/float64(b.N), "ref-ns/op")
	b.ReportMetric(float64(ours)/float64(ref), "ratio")
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
