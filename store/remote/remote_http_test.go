package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
)

// gitHTTPServer serves the bare repositories under root with `git
// http-backend` over loopback HTTP, behind basic auth for user:pass.
func gitHTTPServer(t *testing.T, root, user, pass string) *httptest.Server {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skip("git not installed")
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skip("git http-backend not installed")
	}
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="skills"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestHTTPRemoteCredentials: over http, credentials come from the URL or,
// when the server asks, from git's credential helpers; a wrong password is
// never printed.
func TestHTTPRemoteCredentials(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	central := filepath.Join(root, "skills.git")
	remoteGit(t, "", "init", "--quiet", "--bare", central)
	remoteGit(t, central, "config", "http.receivepack", "true")
	srv := gitHTTPServer(t, root, "alice", "s3cret")
	host := strings.TrimPrefix(srv.URL, "http://")

	// A git credential helper in the user's git config answers.
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	storetest.WriteFile(t, cfg, "[credential]\n\thelper = \"!f() { echo username=alice; echo password=s3cret; }; f\"\n")
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")

	alice := newActorStore(t, "alice")
	publishMD(t, alice, "deploy", "v1")
	mustAddRemote(t, alice, "origin", "http://"+host+"/skills.git")
	mustPush(t, alice, "")
	if got := refValues(t, central, store.SkillRefPrefix); !strings.Contains(got, "refs/heads/skills/deploy") {
		t.Fatalf("central refs: %q", got)
	}

	// Credentials in the URL are used as they are, and a wrong one is
	// refused without being printed.
	bob, _, err := Clone(ctx, "http://alice:s3cret@"+host+"/skills.git", filepath.Join(t.TempDir(), "bob"), store.Options{}, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if storetest.HeadOf(t, bob, "deploy").Number != 1 {
		t.Errorf("clone over http did not bring deploy")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null") // no helper
	carol := newActorStore(t, "carol")
	mustAddRemote(t, carol, "origin", "http://alice:wr0ngpass@"+host+"/skills.git")
	_, err = Pull(ctx, carol, PullOptions{})
	if !errors.Is(err, ErrRemoteAuth) {
		t.Fatalf("pull with a wrong password = %v", err)
	}
	if strings.Contains(err.Error(), "wr0ngpass") {
		t.Errorf("the error shows the password: %v", err)
	}
}
