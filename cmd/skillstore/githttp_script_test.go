package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("githttp", cmdGitHTTP)
}

// gitHTTP is git's own `git http-backend` behind an HTTP server in the
// test process, on 127.0.0.1, for a scenario. It resolves each request's
// path as a front end such as nginx does before it picks a repository
// (%XX decoded, "//" merged, "." and ".." resolved), so a URL whose path
// reads as one repository's and resolves to another's reaches the other.
// A path can be made to answer 302 to another URL.
type gitHTTP struct {
	srv       *http.Server
	backend   *cgi.Handler
	mu        sync.Mutex
	redirects map[string]string // path prefix → where it is sent
	requests  []string          // resolved paths asked, one per request
}

var gitHTTPs scenarioServers[*gitHTTP]

// cmdGitHTTP runs a git smart-HTTP server for the scenario, named NAME;
// its URL is in $NAME (http://127.0.0.1:PORT) and its address in
// $NAME_ADDR; $NAME/x.git serves the bare repository ROOT/x.git.
//
//	githttp start NAME ROOT          listen and serve ROOT
//	githttp redirect NAME PATH URL   answer a request for PATH or below it with
//	                                 302 to URL plus the rest of the path and the query
//	githttp requests NAME            print the resolved path of each request, one a line
func cmdGitHTTP(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: githttp start NAME ROOT | redirect NAME PATH URL | requests NAME"
	if neg || len(args) < 2 {
		ts.Fatalf(usage)
	}
	srv, _ := gitHTTPs.get(ts, args[1])
	if args[0] == "start" {
		if len(args) != 3 || srv != nil {
			ts.Fatalf("usage: githttp start NAME ROOT (once per NAME)")
		}
		srv = startGitHTTP(ts, args[1], ts.MkAbs(args[2]))
		gitHTTPs.put(ts, args[1], srv)
		return
	}
	if srv == nil {
		ts.Fatalf("githttp %s: no server %s started", args[0], args[1])
	}
	switch {
	case args[0] == "redirect" && len(args) == 4:
		srv.mu.Lock()
		srv.redirects[path.Clean(args[2])] = args[3]
		srv.mu.Unlock()
	case args[0] == "requests" && len(args) == 2:
		out := ts.Stdout()
		srv.mu.Lock()
		defer srv.mu.Unlock()
		for _, r := range srv.requests {
			fmt.Fprintln(out, r)
		}
	default:
		ts.Fatalf(usage)
	}
}

func startGitHTTP(ts *testscript.TestScript, name, root string) *gitHTTP {
	out, err := exec.Command("git", "--exec-path").Output()
	ts.Check(err)
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		ts.Fatalf("githttp: git http-backend is not installed: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	s := &gitHTTP{
		backend: &cgi.Handler{Path: backend, Env: []string{
			"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		}},
		redirects: map[string]string{},
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	ts.Defer(func() { s.srv.Close() })
	ts.Setenv(name, "http://"+ln.Addr().String())
	ts.Setenv(name+"_ADDR", ln.Addr().String())
	return s
}

// ServeHTTP answers a request: a redirect for a path below one, else git
// http-backend on the resolved path.
func (s *gitHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	clean := path.Clean("/" + r.URL.Path)
	s.mu.Lock()
	s.requests = append(s.requests, clean)
	to, rest, longest := "", "", ""
	for from, u := range s.redirects {
		if tail, ok := strings.CutPrefix(clean, from); ok && (tail == "" || tail[0] == '/') && len(from) > len(longest) {
			to, rest, longest = u, tail, from
		}
	}
	s.mu.Unlock()
	if to != "" {
		// Written as given: http.Redirect would clean it.
		loc := to + rest
		if r.URL.RawQuery != "" {
			loc += "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusFound)
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = clean, ""
	s.backend.ServeHTTP(w, r2)
}
