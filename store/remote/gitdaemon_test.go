package remote

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gitDaemon is a real `git daemon` serving bare repositories over git://
// on loopback, with push enabled, for the length of one test.
type gitDaemon struct {
	base string
	port int
}

// gitEnv is the environment for the git CLI in tests: no system or user
// config, a fixed identity.
func gitEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Reviewer", "GIT_AUTHOR_EMAIL=reviewer@example.com",
		"GIT_COMMITTER_NAME=Reviewer", "GIT_COMMITTER_EMAIL=reviewer@example.com")
}

// requireGitDaemon skips the test when git or its daemon is missing.
func requireGitDaemon(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skip("git --exec-path failed")
	}
	if _, err := os.Stat(filepath.Join(strings.TrimSpace(string(out)), "git-daemon")); err != nil {
		t.Skip("git daemon not installed")
	}
}

// freePort finds a free loopback port by listening on port 0.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startGitDaemon starts git daemon on 127.0.0.1 and stops it (and the
// processes it forked for connections) when the test ends.
func startGitDaemon(t testing.TB) *gitDaemon {
	t.Helper()
	requireGitDaemon(t)
	d := &gitDaemon{base: t.TempDir()}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		d.port = freePort(t)
		cmd := exec.Command("git", "daemon", "--reuseaddr", "--base-path="+d.base, "--export-all",
			"--enable=receive-pack", "--informative-errors", "--listen=127.0.0.1", "--port="+strconv.Itoa(d.port), d.base)
		cmd.Env = gitEnv()
		ownProcessGroup(cmd)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatalf("start git daemon: %v", err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		stop := func() {
			killProcessGroup(cmd)
			<-exited
		}
		if lastErr = waitListening(d.port, exited); lastErr == nil {
			t.Cleanup(stop)
			return d
		}
		stop()
		lastErr = fmt.Errorf("%v: %s", lastErr, stderr.String())
	}
	t.Fatalf("git daemon did not start: %v", lastErr)
	return nil
}

// waitListening waits until the port accepts connections, for at most 10s.
func waitListening(port int, exited <-chan error) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("git daemon exited: %v", err)
		default:
		}
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("port %d not listening after 10s", port)
}

// newRepo creates an empty bare repository the daemon serves and returns
// its git:// URL.
func (d *gitDaemon) newRepo(t testing.TB, name string) string {
	t.Helper()
	remoteGit(t, "", "init", "--quiet", "--bare", filepath.Join(d.base, name))
	return d.url(name)
}

func (d *gitDaemon) url(name string) string {
	return fmt.Sprintf("git://127.0.0.1:%d/%s", d.port, name)
}

func (d *gitDaemon) path(name string) string { return filepath.Join(d.base, name) }

// remoteGit runs the git CLI in dir and returns its standard output.
func remoteGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}
