package gitfetch

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// upstreamRepo makes a git repository with two commits on main, an annotated
// tag v1 on the first and a branch dev, using the real git CLI. It returns
// the folder and the two commit ids.
func upstreamRepo(t *testing.T) (dir, first, second string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "upstream")
	md := filepath.Join(dir, "skills", "a", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(md), 0o755); err != nil {
		t.Fatal(err)
	}
	skill := "---\nname: a\ndescription: A skill.\n---\nbody\n"
	if err := os.WriteFile(md, []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	commit := func(msg string) string {
		gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", msg)
		return strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	}
	first = commit("first")
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "tag", "-a", "-m", "v1", "v1")
	gitRun(t, dir, "branch", "dev")
	if err := os.WriteFile(md, []byte(skill+"more\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "add", "-A")
	second = commit("second")
	return dir, first, second
}

func TestFetch(t *testing.T) {
	up, first, second := upstreamRepo(t)
	cases := []struct {
		name, url, ref, want, wantRef, wantErr string
	}{
		{name: "remote HEAD over a plain path", url: up, want: second, wantRef: "refs/heads/main"},
		{name: "file URL and a branch", url: "file://" + up, ref: "dev", want: first, wantRef: "refs/heads/dev"},
		{name: "annotated tag is peeled", url: up, ref: "v1", want: first, wantRef: "refs/tags/v1"},
		{name: "full ref name", url: up, ref: "refs/heads/main", want: second, wantRef: "refs/heads/main"},
		{name: "full commit pin", url: up, ref: first, want: first},
		{name: "abbreviated commit pin", url: up, ref: first[:10], want: first},
		{name: "unknown ref", url: up, ref: "nope", wantErr: `--ref "nope": no such branch, tag or commit`},
		{name: "unknown commit", url: up, ref: strings.Repeat("ab", 20), wantErr: "no such branch, tag or commit"},
		{name: "no repository", url: filepath.Join(up, "missing"), wantErr: "fetch " + filepath.Join(up, "missing")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			repo, err := git.PlainInit(filepath.Join(t.TempDir(), "store"), true)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Fetch(context.Background(), repo.Storer, tc.url, tc.ref, skillfs.ZeroID, Options{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(tc.wantErr, "no such") && !errors.Is(err, ErrRefNotFound) {
					t.Errorf("error %v does not wrap ErrRefNotFound", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Commit.String() != tc.want || got.Ref != tc.wantRef {
				t.Errorf("fetched %s from %q, want %s from %q", got.Commit, got.Ref, tc.want, tc.wantRef)
			}
			if refs, _ := repo.References(); refs != nil {
				refs.ForEach(func(r *plumbing.Reference) error {
					if r.Name() == plumbing.HEAD {
						return nil // the symbolic HEAD of a new repository
					}
					t.Errorf("fetch wrote ref %s: refs are the caller's to write", r.Name())
					return nil
				})
			}
			// A second fetch has nothing new and gives the same answer.
			again, err := Fetch(context.Background(), repo.Storer, tc.url, tc.ref, got.Commit, Options{})
			if err != nil || again.Commit != got.Commit || again.Ref != got.Ref {
				t.Errorf("refetch = %v, %v; want %v", again, err, got)
			}
			// The objects are readable through the fetch, and not written
			// to the repository: the store's transaction writes them.
			if _, err := got.FS(); err != nil {
				t.Errorf("fetched commit not readable: %v", err)
			}
			if tc.ref != first && hasCommit(repo.Storer, got.Commit) {
				t.Errorf("fetch wrote commit %s into the repository", got.Commit)
			}
		})
	}
}
