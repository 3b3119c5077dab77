package remote

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
)

// boundedWait runs fn on its own goroutine and fails the test when it has
// not returned within limit: a hang fails instead of hanging the suite.
// Nothing else is asserted about time.
func boundedWait(t *testing.T, limit time.Duration, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("still waiting after %s: the call hangs", limit)
		return nil
	}
}

// gitChildren lists this process's child processes whose command is git
// (running or exited and not reaped yet), as "pid comm state", from /proc.
func gitChildren(t *testing.T) map[string]string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to list child processes")
	}
	self := strconv.Itoa(os.Getpid())
	out := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		open, close := strings.IndexByte(string(data), '('), strings.LastIndexByte(string(data), ')')
		if open < 0 || close < open {
			continue
		}
		comm := string(data[open+1 : close])
		fields := strings.Fields(string(data[close+1:]))
		if len(fields) > 1 && fields[1] == self && strings.HasPrefix(comm, "git") {
			out[e.Name()] = comm + " " + fields[0]
		}
	}
	return out
}

// localHugeBlobRemote is a bare repository on disk holding a store whose
// skill "evil" has a version with a 20 MiB blob that does not compress:
// over the cap on one fetched object, in a pack far larger than a pipe
// holds, so git upload-pack is still writing when the pack is refused.
func localHugeBlobRemote(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mallory.git")
	remoteGit(t, "", "init", "--quiet", "--bare", dir)
	src := newActorStore(t, "mallory")
	publishMD(t, src, "good", "fine")
	mustAddRemote(t, src, "origin", dir)
	mustPush(t, src, "")
	md := gitObject(t, dir, "blob", []byte(storetest.SkillMD("evil", "fine")))
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, gitEnv(), io.LimitReader(&noiseReader{x: 88172645463325252}, hugeBlobSize)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git hash-object: %v", err)
	}
	big, _ := store.ParseHash(strings.TrimSpace(string(out)))
	evilVersion(t, dir, "refs/heads/skills/evil", []skillfs.TreeEntry{{Name: "SKILL.md", Mode: skillfs.Regular, ID: md}, {Name: "big.bin", Mode: skillfs.Regular, ID: big}})
	return dir
}

// hugeBlobSize is the size of localHugeBlobRemote's blob.
const hugeBlobSize = 20 << 20

// noiseReader reads bytes that do not compress (xorshift64).
type noiseReader struct{ x uint64 }

func (n *noiseReader) Read(p []byte) (int, error) {
	for i := range p {
		n.x ^= n.x << 13
		n.x ^= n.x >> 7
		n.x ^= n.x << 17
		p[i] = byte(n.x)
	}
	return len(p), nil
}

// TestPullLocalHugeBlobEndsAndReaps: a pull or clone from a remote on
// this machine's disk (a path or a file:// URL) holding an object over
// the size cap is refused with an error naming its size, within seconds
// instead of hanging on git upload-pack's full pipe with the store lock
// held, and no git process of it is left running or unreaped.
func TestPullLocalHugeBlobEndsAndReaps(t *testing.T) {
	dir := localHugeBlobRemote(t)
	ctx := context.Background()
	// The control: a git child that waits on its input is seen.
	control := exec.Command("git", "cat-file", "--batch")
	control.Dir = dir
	if _, err := control.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := control.Start(); err != nil {
		t.Fatal(err)
	}
	if _, ok := gitChildren(t)[strconv.Itoa(control.Process.Pid)]; !ok {
		t.Errorf("gitChildren does not see git cat-file, pid %d", control.Process.Pid)
	}
	control.Process.Kill()
	control.Wait()
	for _, url := range []string{dir, "file://" + dir} {
		t.Run("pull "+url[:4], func(t *testing.T) {
			before := gitChildren(t)
			victim := newActorStore(t, "victim")
			mustAddRemote(t, victim, "origin", url)
			err := boundedWait(t, 60*time.Second, func() error {
				_, err := Pull(ctx, victim, PullOptions{})
				return err
			})
			if err == nil || !strings.Contains(err.Error(), strconv.Itoa(hugeBlobSize)) {
				t.Fatalf("pull = %v, want refused naming the blob's size", err)
			}
			for pid, what := range gitChildren(t) {
				if before[pid] == "" {
					t.Errorf("pull left child process %s: %s", pid, what)
				}
			}
			if refs := refValues(t, victim.Dir(), "refs/heads/"); refs != "" {
				t.Errorf("a refused pull wrote refs:\n%s", refs)
			}
			storetest.CheckStore(t, victim.Dir())
		})
		t.Run("clone "+url[:4], func(t *testing.T) {
			before := gitChildren(t)
			to := filepath.Join(t.TempDir(), "clone")
			err := boundedWait(t, 60*time.Second, func() error {
				_, _, err := Clone(ctx, url, to, store.Options{}, CloneOptions{})
				return err
			})
			if err == nil || !strings.Contains(err.Error(), strconv.Itoa(hugeBlobSize)) {
				t.Fatalf("clone = %v, want refused naming the blob's size", err)
			}
			for pid, what := range gitChildren(t) {
				if before[pid] == "" {
					t.Errorf("clone left child process %s: %s", pid, what)
				}
			}
			if _, err := os.Stat(to); err == nil {
				t.Errorf("a refused clone left %s", to)
			}
		})
	}
}

// silentServer accepts connections on 127.0.0.1 and never answers, as a
// wedged server does; accepted receives one value per connection.
func silentServer(t *testing.T) (addr string, accepted chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = make(chan struct{}, 16)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			select {
			case accepted <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String(), accepted
}

// TestPullHungHTTPServer: a pull from an http server that accepts and
// never answers fails with the fetch deadline's error, and while it waits
// another process's reader (a second handle on the store, whose lock
// timeout is one second) reads the store: the network phase holds no
// lock.
func TestPullHungHTTPServer(t *testing.T) {
	addr, accepted := silentServer(t)
	ctx := context.Background()
	victim := newActorStore(t, "victim")
	publishMD(t, victim, "deploy", "v1")
	mustAddRemote(t, victim, "origin", "http://"+addr+"/skills.git")
	s, err := store.Open(ctx, victim.Dir(), store.Options{FetchTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	pulled := make(chan error, 1)
	go func() {
		_, err := Pull(ctx, s, PullOptions{})
		pulled <- err
	}()
	select {
	case <-accepted:
	case <-time.After(30 * time.Second):
		t.Fatal("the pull never connected")
	}
	reader, err := store.Open(ctx, victim.Dir(), store.Options{LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reader.Show(ctx, "deploy"); err != nil {
		t.Errorf("show while the pull waits: %v", err)
	}
	select {
	case err := <-pulled:
		if !errors.Is(err, store.ErrFetchTimeout) || !strings.Contains(err.Error(), "no answer from the server for 2s") {
			t.Errorf("pull = %v, want the fetch deadline's error", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the pull still waits: --fetch-timeout does not apply to it")
	}
}

// authRecorder is an http server that asks for basic auth on every
// request and records the Authorization headers it receives.
type authRecorder struct {
	mu      sync.Mutex
	headers []string
}

func (a *authRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.headers = append(a.headers, r.Header.Get("Authorization"))
	a.mu.Unlock()
	w.Header().Set("WWW-Authenticate", `Basic realm="skills"`)
	http.Error(w, "unauthorized", http.StatusUnauthorized)
}

func (a *authRecorder) sent() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, h := range a.headers {
		if h != "" {
			out = append(out, h)
		}
	}
	return out
}

// TestCredentialURLNeverReachesHelpers: a remote URL whose user part
// carries encoded line breaks ("me%0ahost=github.com%0aprotocol=https")
// would make `git credential fill` answer for github.com, and the token
// would go to the server in the URL. The URL is refused by remote add and
// clone, and by pull and push when written into the git config by hand;
// the error names the part, escaped; the credential helper configured in
// the user's git config (which answers for github.com) never gives its
// token to the server.
func TestCredentialURLNeverReachesHelpers(t *testing.T) {
	rec := &authRecorder{}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	helper := `!f() { test "$1" = get || exit 0; h=; while read -r l; do case "$l" in host=*) h=${l#host=};; esac; done; if [ "$h" = github.com ]; then echo username=victim; echo password=ghp_SECRET; fi; }; f`
	storetest.WriteFile(t, cfg, "[credential]\n\thelper = "+strconv.Quote(helper)+"\n")
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	url := "http://me%0ahost=github.com%0aprotocol=https@" + strings.TrimPrefix(srv.URL, "http://") + "/x.git"
	ctx := context.Background()
	wantRefused := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), `user "me\nhost=github.com\nprotocol=https" holds a control character`) {
			t.Errorf("%s = %v, want refused naming the user part", what, err)
		}
	}

	victim := newActorStore(t, "victim")
	_, err := Add(ctx, victim, "origin", url)
	wantRefused("remote add", err)
	_, _, err = Clone(ctx, url, filepath.Join(t.TempDir(), "clone"), store.Options{}, CloneOptions{})
	wantRefused("clone", err)
	remoteGit(t, victim.Dir(), "config", "remote.origin.url", url)
	_, err = Pull(ctx, victim, PullOptions{})
	wantRefused("pull", err)
	publishMD(t, victim, "deploy", "v1")
	_, err = Push(ctx, victim, PushOptions{})
	wantRefused("push", err)
	if sent := rec.sent(); len(sent) > 0 {
		t.Errorf("the server received credentials: %q", sent)
	}
}

// TestCredentialHelperIgnoresCallerRepo: `git credential fill` must not
// read the configuration of the repository the caller stands in (or that
// GIT_DIR or GIT_CONFIG_PARAMETERS name): a hostile repository's
// `credential.helper = !touch pwned` would run on pull. The server asks
// for credentials, so the helpers are asked; the file is never created.
func TestCredentialHelperIgnoresCallerRepo(t *testing.T) {
	srv := httptest.NewServer(&authRecorder{})
	t.Cleanup(srv.Close)
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	hostile := filepath.Join(t.TempDir(), "hostile")
	remoteGit(t, "", "init", "--quiet", hostile)
	pwned := filepath.Join(t.TempDir(), "pwned")
	remoteGit(t, hostile, "config", "credential.helper", "!touch "+pwned)
	victim := newActorStore(t, "victim")
	mustAddRemote(t, victim, "origin", srv.URL+"/x.git")
	ctx := context.Background()
	cases := []struct {
		name string
		set  func(t *testing.T)
	}{
		{"working folder", func(t *testing.T) { t.Chdir(hostile) }},
		{"GIT_DIR", func(t *testing.T) { t.Setenv("GIT_DIR", filepath.Join(hostile, ".git")) }},
		{"GIT_CONFIG_PARAMETERS", func(t *testing.T) {
			t.Setenv("GIT_CONFIG_PARAMETERS", "'credential.helper'='!touch "+pwned+"'")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.set(t)
			_, err := Pull(ctx, victim, PullOptions{})
			if !errors.Is(err, ErrRemoteAuth) {
				t.Errorf("pull = %v, want the server's refusal", err)
			}
			if _, err := os.Stat(pwned); err == nil {
				t.Fatalf("the caller's repository configuration ran its credential helper: %s exists", pwned)
			}
		})
	}
	// The control: the same helper in the user's own git config is asked,
	// so the pulls above did reach the credential helpers.
	global := filepath.Join(t.TempDir(), "gitconfig")
	storetest.WriteFile(t, global, "[credential]\n\thelper = "+strconv.Quote("!touch "+pwned)+"\n")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	if _, err := Pull(ctx, victim, PullOptions{}); !errors.Is(err, ErrRemoteAuth) {
		t.Errorf("pull = %v, want the server's refusal", err)
	}
	if _, err := os.Stat(pwned); err != nil {
		t.Errorf("the user's own credential helper was not asked: %v", err)
	}
}
