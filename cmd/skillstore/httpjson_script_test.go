package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("httpjson", cmdHTTPJSON)
}

// httpJSON is an HTTP server in the test process answering GET requests
// with JSON files, in the shape of a service's REST API (skills.sh's
// search, GitHub's code search): /a/b?x=y is answered with ROOT/a/b.json
// (404 {"message": "Not Found"} when there is none). A file beside it,
// ROOT/a/b.json.auth, holds the Authorization header the path requires;
// without it the answer is 401 {"message": "Requires authentication"},
// as GitHub answers. ROOT/a/b.json.status, when there, holds the status
// to answer with instead of 200.
type httpJSON struct {
	srv      *http.Server
	root     string
	mu       sync.Mutex
	requests []string
}

var httpJSONs scenarioServers[*httpJSON]

// cmdHTTPJSON runs a JSON server for the scenario, named NAME; its URL is
// in $NAME (http://127.0.0.1:PORT).
//
//	httpjson start NAME ROOT   listen and serve ROOT
//	httpjson requests NAME     print "N requests", then each request, one a
//	                           line: the path and query, then "auth" when it
//	                           carried an Authorization header
func cmdHTTPJSON(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: httpjson start NAME ROOT | requests NAME"
	if neg || len(args) < 2 {
		ts.Fatalf(usage)
	}
	srv, _ := httpJSONs.get(ts, args[1])
	switch {
	case args[0] == "start" && len(args) == 3 && srv == nil:
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		s := &httpJSON{root: ts.MkAbs(args[2])}
		s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
		go s.srv.Serve(ln)
		ts.Defer(func() { s.srv.Close() })
		ts.Setenv(args[1], "http://"+ln.Addr().String())
		httpJSONs.put(ts, args[1], s)
	case args[0] == "requests" && len(args) == 2 && srv != nil:
		srv.mu.Lock()
		defer srv.mu.Unlock()
		fmt.Fprintf(ts.Stdout(), "%d requests\n", len(srv.requests))
		for _, r := range srv.requests {
			fmt.Fprintln(ts.Stdout(), r)
		}
	default:
		ts.Fatalf(usage)
	}
}

func (s *httpJSON) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	line := r.URL.RequestURI()
	if r.Header.Get("Authorization") != "" {
		line += " auth"
	}
	s.mu.Lock()
	s.requests = append(s.requests, line)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	file := filepath.Join(s.root, filepath.FromSlash(path.Clean("/"+r.URL.Path))) + ".json"
	if want, err := os.ReadFile(file + ".auth"); err == nil && r.Header.Get("Authorization") != strings.TrimSpace(string(want)) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintln(w, `{"message": "Requires authentication", "documentation_url": "https://docs.github.com/rest"}`)
		return
	}
	body, err := os.ReadFile(file)
	if err != nil {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintln(w, `{"message": "Not Found"}`)
		return
	}
	if st, err := os.ReadFile(file + ".status"); err == nil {
		var code int
		fmt.Sscan(string(st), &code)
		w.WriteHeader(code)
	}
	w.Write(body)
}
