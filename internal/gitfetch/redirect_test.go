package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// httpBackend serves the repositories under root with git's own `git
// http-backend` on 127.0.0.1, its paths resolved as a front end such as
// nginx resolves them (%XX decoded, "//" merged, "." and ".." resolved);
// a request below one of the redirects' keys is answered 302 to its value
// plus the rest of the path and the query.
func httpBackend(t *testing.T, root string, redirects map[string]string) *httptest.Server {
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
		clean := path.Clean(r.URL.Path)
		for from, to := range redirects {
			if rest, ok := strings.CutPrefix(clean, from); ok && (rest == "" || rest[0] == '/') {
				// As written: http.Redirect would clean the path.
				w.Header().Set("Location", to+rest+"?"+r.URL.RawQuery)
				w.WriteHeader(http.StatusFound)
				return
			}
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path, r2.URL.RawPath = clean, ""
		h.ServeHTTP(w, r2)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFetchRedirect: a redirect is followed only to a repository
// Options.Allow allows, in canonical form; a refused one names both URLs
// and fetches nothing.
func TestFetchRedirect(t *testing.T) {
	up, _, second := upstreamRepo(t)
	root := t.TempDir()
	for _, name := range []string{"acme/good.git", "evil/bad.git"} {
		gitRun(t, root, "clone", "-q", "--bare", up, name)
	}
	srv := httpBackend(t, root, map[string]string{
		"/acme/moved.git":  "/acme/good.git",
		"/acme/sneaky.git": "/evil/bad.git",
		"/acme/dotted.git": "/acme/%2e%2e/evil/bad.git", // the client resolves a plain ".." itself
	})
	allowAcme := func(u string) error {
		if !strings.HasPrefix(u, srv.URL+"/acme/") {
			return fmt.Errorf("%s: not acme's", u)
		}
		return nil
	}
	fetch := func(repo string, opts Options) (Fetched, error) {
		store, err := git.PlainInit(filepath.Join(t.TempDir(), "store"), true)
		if err != nil {
			t.Fatal(err)
		}
		return Fetch(context.Background(), store.Storer, srv.URL+repo, "", skillfs.ZeroID, opts)
	}

	// Within what is allowed, a redirect is followed.
	got, err := fetch("/acme/moved.git", Options{Allow: allowAcme})
	if err != nil || got.Commit.String() != second {
		t.Fatalf("fetch through an allowed redirect = %v, %v", got.Commit, err)
	}
	// Without a policy, as git does, too.
	if _, err := fetch("/acme/sneaky.git", Options{}); err != nil {
		t.Fatalf("fetch through a redirect with no policy: %v", err)
	}

	// To another owner: refused, naming both URLs and why.
	_, err = fetch("/acme/sneaky.git", Options{Allow: allowAcme})
	var re *RedirectError
	if !errors.As(err, &re) {
		t.Fatalf("fetch through a forbidden redirect = %v, want a *RedirectError", err)
	}
	if re.From != srv.URL+"/acme/sneaky.git" || re.To != srv.URL+"/evil/bad.git" || !strings.Contains(err.Error(), "not acme's") {
		t.Errorf("error %q: from %q to %q", err, re.From, re.To)
	}

	// A redirect whose path a server resolves (dot segments) is refused
	// even with no policy: what is fetched must be what is checked.
	_, err = fetch("/acme/dotted.git", Options{})
	var ue *URLError
	if !errors.As(err, &re) || !errors.As(err, &ue) || ue.Part != "path" {
		t.Fatalf("fetch through a redirect to dot segments = %v", err)
	}
}
