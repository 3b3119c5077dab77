package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("gitserver", cmdGitServer)
}

// gitServer is a git:// server run inside the test process for a scenario:
// each connection's request is answered by the real `git upload-pack` on
// a folder under base, until the scenario makes the server hang (accept
// connections and never answer, as a wedged upstream does) or stop
// (connections refused).
type gitServer struct {
	ln       net.Listener
	base     string
	mu       sync.Mutex
	hang     bool
	held     []net.Conn    // connections left unanswered while hung
	accepted chan struct{} // signalled on each connection left hanging
}

var gitServers scenarioServers[*gitServer]

// cmdGitServer runs a git:// server for the scenario, named NAME; its URL
// is in $NAME (git://127.0.0.1:PORT), and $NAME/repo serves BASE/repo.
//
//	gitserver start NAME BASE   listen and serve
//	gitserver hang NAME         accept connections, never answer
//	gitserver waithung NAME     wait until a connection is left hanging
//	gitserver release NAME      close the hanging connections, answer again
//	gitserver stop NAME         close the listener (connections refused)
func cmdGitServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: gitserver start NAME BASE | hang NAME | waithung NAME | release NAME | stop NAME")
	}
	srv, _ := gitServers.get(ts, args[1])
	if args[0] == "start" {
		if len(args) != 3 || srv != nil {
			ts.Fatalf("usage: gitserver start NAME BASE (once per NAME)")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		srv = &gitServer{ln: ln, base: ts.MkAbs(args[2]), accepted: make(chan struct{}, 64)}
		gitServers.put(ts, args[1], srv)
		go srv.serve()
		ts.Defer(srv.close)
		ts.Setenv(args[1], "git://"+ln.Addr().String())
		return
	}
	if srv == nil {
		ts.Fatalf("gitserver %s: no server %s started", args[0], args[1])
	}
	switch args[0] {
	case "hang":
		srv.mu.Lock()
		srv.hang = true
		srv.mu.Unlock()
	case "waithung":
		select {
		case <-srv.accepted:
		case <-time.After(30 * time.Second):
			ts.Fatalf("gitserver waithung: no connection within 30s")
		}
	case "release":
		srv.mu.Lock()
		for _, c := range srv.held {
			c.Close()
		}
		srv.held, srv.hang = nil, false
		srv.mu.Unlock()
	case "stop":
		srv.ln.Close()
	default:
		ts.Fatalf("gitserver: unknown action %q", args[0])
	}
}

func (s *gitServer) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		hang := s.hang
		if hang {
			s.held = append(s.held, c)
		}
		s.mu.Unlock()
		if hang {
			s.accepted <- struct{}{}
			continue
		}
		go s.answer(c)
	}
}

// answer reads a git:// request ("git-upload-pack /path\0host=...\0" in
// one pkt-line) and runs git upload-pack on the folder it names.
func (s *gitServer) answer(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return
	}
	n, err := strconv.ParseUint(string(size[:]), 16, 16)
	if err != nil || n < 4 {
		return
	}
	line := make([]byte, n-4)
	if _, err := io.ReadFull(r, line); err != nil {
		return
	}
	cmd, rest, _ := strings.Cut(string(line), " ")
	path, _, _ := strings.Cut(rest, "\x00")
	if cmd != "git-upload-pack" || strings.Contains(path, "..") {
		fmt.Fprintf(c, "%04xERR bad request\n", len("ERR bad request\n")+4)
		return
	}
	up := exec.Command("git", "upload-pack", filepath.Join(s.base, filepath.FromSlash(path)))
	up.Stdin, up.Stdout = r, c
	up.Run()
}

func (s *gitServer) close() {
	s.ln.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.held {
		c.Close()
	}
}
