package gitfetch

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/skillstore/skillstore/internal/gitdb"
)

// childPIDs lists this process's child processes (running, or exited and
// not reaped yet), from /proc.
func childPIDs(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to list child processes")
	}
	self := strconv.Itoa(os.Getpid())
	out := map[string]bool{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(fields) > 1 && fields[1] == self {
			out[e.Name()] = true
		}
	}
	return out
}

// noise reads bytes that do not compress (xorshift64).
type noise struct{ x uint64 }

func (n *noise) Read(p []byte) (int, error) {
	for i := range p {
		n.x ^= n.x << 13
		n.x ^= n.x >> 7
		n.x ^= n.x << 17
		p[i] = byte(n.x)
	}
	return len(p), nil
}

// TestLocalFetchRefusesHugeObject: a fetch from a repository on disk
// whose pack holds an object over the cap (in a pack far larger than a
// pipe holds) fails with the cap's error and leaves no process behind:
// git upload-pack is killed and reaped, not read to its end.
func TestLocalFetchRefusesHugeObject(t *testing.T) {
	up, _, _ := upstreamRepo(t)
	f, err := os.Create(filepath.Join(up, "skills", "a", "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, io.LimitReader(&noise{x: 7}, gitdb.MaxFetchedObjectSize+1<<20)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	gitRun(t, up, "add", "-A")
	gitRun(t, up, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "big")
	repo, err := git.PlainInit(filepath.Join(t.TempDir(), "store"), true)
	if err != nil {
		t.Fatal(err)
	}
	before := childPIDs(t)
	done := make(chan error, 1)
	go func() {
		_, err := Fetch(context.Background(), repo.Storer, "file://"+up, "main", [20]byte{}, Options{})
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the fetch still waits after 60s")
	}
	var tooLarge *gitdb.ObjectTooLargeError
	if !errors.As(err, &tooLarge) {
		t.Fatalf("fetch = %v, want an ObjectTooLargeError", err)
	}
	for pid := range childPIDs(t) {
		if !before[pid] {
			t.Errorf("the fetch left child process %s", pid)
		}
	}
}

// TestLocalFetchMissingRepository: a path that holds no repository is
// transport.ErrRepositoryNotFound, as over the network.
func TestLocalFetchMissingRepository(t *testing.T) {
	repo, err := git.PlainInit(filepath.Join(t.TempDir(), "store"), true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Fetch(context.Background(), repo.Storer, filepath.Join(t.TempDir(), "nothing"), "", [20]byte{}, Options{})
	if !errors.Is(err, transport.ErrRepositoryNotFound) {
		t.Errorf("fetch = %v, want ErrRepositoryNotFound", err)
	}
}

// TestCommandReadsOnlyUserConfig: a git helper started from inside a
// repository, with GIT_DIR, GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT
// naming others, sees none of their configuration, only the user's
// global file.
func TestCommandReadsOnlyUserConfig(t *testing.T) {
	hostile := filepath.Join(t.TempDir(), "hostile")
	gitRun(t, "", "init", "-q", hostile)
	gitRun(t, hostile, "config", "credential.helper", "from-repo")
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte("[credential]\n\thelper = from-user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(hostile)
	t.Setenv("GIT_DIR", filepath.Join(hostile, ".git"))
	t.Setenv("GIT_CONFIG_PARAMETERS", "'credential.helper'='from-parameters'")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "credential.helper")
	t.Setenv("GIT_CONFIG_VALUE_0", "from-count")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	out, err := Command(context.Background(), t.TempDir(), "config", "--get-all", "credential.helper").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("git config: %v: %s", err, exit.Stderr)
		}
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "from-user" {
		t.Errorf("credential.helper = %q, want only the user's from-user", got)
	}
}
