package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("httpserver", cmdHTTPServer)
	addScriptCmd("bound", cmdBound)
	addScriptCmd("mknoise", cmdMkNoise)
	addScriptCmd("noprocs", cmdNoProcs)
}

// httpServer is an http server run inside the test process for a
// scenario, in one of two modes: "auth" answers every request with 401
// and a Basic challenge (so a git client asks its credential helpers)
// and records the Authorization headers it receives; "silent" accepts
// connections and never answers, as a wedged server does.
type httpServer struct {
	ln       net.Listener
	mu       sync.Mutex
	auth     []string      // Authorization headers received, "" for none
	conns    []net.Conn    // held by a silent server
	accepted chan struct{} // one per connection a silent server holds
}

var httpServers scenarioServers[*httpServer]

// cmdHTTPServer runs an http server for the scenario, named NAME; its URL
// is in $NAME (http://127.0.0.1:PORT) and its address in $NAME_ADDR.
//
//	httpserver start NAME auth|silent
//	httpserver waitconn NAME   wait until a silent server holds a connection
//	httpserver auth NAME       print the Authorization headers received, one a line
func cmdHTTPServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: httpserver start NAME auth|silent | waitconn NAME | auth NAME")
	}
	srv, _ := httpServers.get(ts, args[1])
	if args[0] == "start" {
		if len(args) != 3 || srv != nil || (args[2] != "auth" && args[2] != "silent") {
			ts.Fatalf("usage: httpserver start NAME auth|silent (once per NAME)")
		}
		srv = startHTTPServer(ts, args[2])
		httpServers.put(ts, args[1], srv)
		ts.Setenv(args[1], "http://"+srv.ln.Addr().String())
		ts.Setenv(args[1]+"_ADDR", srv.ln.Addr().String())
		return
	}
	if srv == nil {
		ts.Fatalf("httpserver %s: no server %s started", args[0], args[1])
	}
	switch args[0] {
	case "waitconn":
		select {
		case <-srv.accepted:
		case <-time.After(30 * time.Second):
			ts.Fatalf("httpserver waitconn: no connection within 30s")
		}
	case "auth":
		out := ts.Stdout() // this command's stdout, even when empty
		srv.mu.Lock()
		defer srv.mu.Unlock()
		for _, h := range srv.auth {
			fmt.Fprintln(out, h)
		}
	default:
		ts.Fatalf("httpserver: unknown action %q", args[0])
	}
}

func startHTTPServer(ts *testscript.TestScript, mode string) *httpServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	srv := &httpServer{ln: ln, accepted: make(chan struct{}, 64)}
	if mode == "silent" {
		go srv.hold()
	} else {
		hs := &http.Server{Handler: http.HandlerFunc(srv.challenge), ReadHeaderTimeout: 10 * time.Second}
		go hs.Serve(ln)
		ts.Defer(func() { hs.Close() })
	}
	ts.Defer(srv.close)
	return srv
}

// challenge records the request's Authorization header and asks for
// credentials.
func (s *httpServer) challenge(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if h := r.Header.Get("Authorization"); h != "" {
		s.auth = append(s.auth, h)
	}
	s.mu.Unlock()
	w.Header().Set("WWW-Authenticate", `Basic realm="skills"`)
	http.Error(w, "unauthorized", http.StatusUnauthorized)
}

// hold accepts connections and keeps them open, unanswered.
func (s *httpServer) hold() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		select {
		case s.accepted <- struct{}{}:
		default:
		}
	}
}

func (s *httpServer) close() {
	s.ln.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
}

// cmdBound bounds the wait for the commands running in the background:
// any still running after DURATION is killed, so a hang fails the
// scenario (the checks of its output that follow 'wait' then fail)
// instead of hanging the test. It asserts nothing about time otherwise.
//
//	bound DURATION
func cmdBound(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: bound DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	cmds := ts.BackgroundCmds()
	timer := time.AfterFunc(d, func() {
		for _, c := range cmds {
			if c.Process != nil {
				c.Process.Kill() // an error means it has exited already
			}
		}
	})
	ts.Defer(func() { timer.Stop() })
}

// cmdMkNoise writes BYTES bytes that do not compress (xorshift64) to
// PATH: a blob that stays large in a pack.
//
//	mknoise PATH BYTES
func cmdMkNoise(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mknoise PATH BYTES")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	data := make([]byte, n)
	x := uint64(88172645463325252)
	for i := range data {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		data[i] = byte(x)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// cmdNoProcs fails when a process of this machine has TEXT in its command
// line (a git process a command left running).
//
//	noprocs TEXT
func cmdNoProcs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: noprocs TEXT")
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		ts.Logf("noprocs: no /proc, nothing checked")
		return
	}
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		if e.Name() == self {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if line := strings.ReplaceAll(string(data), "\x00", " "); strings.Contains(line, args[0]) {
			ts.Fatalf("process %s is still running: %s", e.Name(), line)
		}
	}
}
