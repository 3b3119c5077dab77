package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("mcphttp", cmdMCPHTTP)
}

// mcpHTTPScriptServer is one 'skillstore mcp --http' process of a
// scenario.
type mcpHTTPScriptServer struct {
	cmd    *exec.Cmd
	url    string
	stderr *mcpSyncBuffer
	done   chan error
}

var mcpHTTPServers scenarioServers[*mcpHTTPScriptServer]

const mcpHTTPUsage = "usage: mcphttp start NAME [FLAG...] | post [-chunked] NAME TOKEN FILE | flood NAME TOKEN N FILE TOKEN2 | stop NAME"

// cmdMCPHTTP runs 'skillstore mcp --http' (the binary on the scenario's
// PATH, on $SKILLSTORE_DIR) as a real process on 127.0.0.1 and speaks
// HTTP to it as clients good and bad do. TOKEN is '-' for no
// Authorization header, @FILE for the token in FILE (as 'skillstore mcp
// token add' printed it: cp stdout FILE), SCHEME:@FILE for it in another
// scheme than Bearer, else a literal token. {{xN}} in a FILE stands for N
// bytes of 'x'.
//
//	mcphttp start NAME [FLAG...]   start the server with FLAGs; $NAME is its URL
//	mcphttp post [-chunked] NAME TOKEN FILE
//	                               POST FILE (with its Content-Length, or
//	                               chunked); print "status N", the
//	                               WWW-Authenticate and Retry-After headers
//	                               and the body's first 4 KB
//	mcphttp flood NAME TOKEN N FILE TOKEN2
//	                               POST FILE N times from TOKEN within about
//	                               a second; halfway, once from TOKEN2;
//	                               print "flood 200 A", "flood 429 B",
//	                               "flood other C" and "beside STATUS"
//	mcphttp stop NAME              SIGTERM; print "exit N" (the server's
//	                               stderr goes to stderr)
func cmdMCPHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! mcphttp")
	}
	if len(args) < 2 {
		ts.Fatalf(mcpHTTPUsage)
	}
	action, args := args[0], args[1:]
	chunked := false
	if action == "post" && args[0] == "-chunked" {
		chunked, args = true, args[1:]
	}
	srv, _ := mcpHTTPServers.get(ts, args[0])
	if action == "start" {
		if srv != nil {
			ts.Fatalf("mcphttp start: a server %s runs already", args[0])
		}
		srv = startScriptMCPHTTP(ts, args[1:])
		mcpHTTPServers.put(ts, args[0], srv)
		ts.Setenv(args[0], srv.url)
		return
	}
	if srv == nil {
		ts.Fatalf("mcphttp %s: no server %s started", action, args[0])
	}
	switch {
	case action == "post" && len(args) == 3:
		body := expandedFile(ts, args[2])
		var r io.Reader = bytes.NewReader(body)
		if chunked {
			r = io.MultiReader(r) // no length known: sent chunked
		}
		code, header, out, err := scriptPost(srv.url, scriptToken(ts, args[1]), r)
		ts.Check(err)
		fmt.Fprintf(ts.Stdout(), "status %d\n", code)
		for _, h := range []string{"Www-Authenticate", "Retry-After"} {
			if v := header.Get(h); v != "" {
				fmt.Fprintf(ts.Stdout(), "%s: %s\n", h, v)
			}
		}
		fmt.Fprintln(ts.Stdout(), strings.TrimRight(string(out), "\n"))
	case action == "flood" && len(args) == 5:
		n, err := strconv.Atoi(args[2])
		if err != nil || n < 1 {
			ts.Fatalf("mcphttp flood: N %q is not a count", args[2])
		}
		body := expandedFile(ts, args[3])
		token, token2 := scriptToken(ts, args[1]), scriptToken(ts, args[4])
		var mu sync.Mutex
		counts := map[string]int{}
		var wg sync.WaitGroup
		beside := 0
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * time.Second / time.Duration(n))
				code, _, _, err := scriptPost(srv.url, token, bytes.NewReader(body))
				class := "other"
				if err == nil && (code == 200 || code == 429) {
					class = strconv.Itoa(code)
				}
				mu.Lock()
				counts[class]++
				mu.Unlock()
			}()
			if i == n/2 {
				var err error
				beside, _, _, err = scriptPost(srv.url, token2, bytes.NewReader(body))
				ts.Check(err)
			}
		}
		wg.Wait()
		for _, class := range []string{"200", "429", "other"} {
			fmt.Fprintf(ts.Stdout(), "flood %s %d\n", class, counts[class])
		}
		fmt.Fprintf(ts.Stdout(), "beside %d\n", beside)
	case action == "stop" && len(args) == 1:
		srv.cmd.Process.Signal(syscall.SIGTERM)
		var err error
		select {
		case err = <-srv.done:
		case <-time.After(10 * time.Second):
			srv.cmd.Process.Kill()
			ts.Fatalf("mcphttp stop: the server still runs 10s after SIGTERM")
		}
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			ts.Fatalf("mcphttp stop: %v", err)
		}
		fmt.Fprint(ts.Stderr(), srv.stderr.String())
		fmt.Fprintf(ts.Stdout(), "exit %d\n", code)
		mcpHTTPServers.put(ts, args[0], nil) // stopped: it may start again
	default:
		ts.Fatalf(mcpHTTPUsage)
	}
}

var servingLine = regexp.MustCompile(`serving MCP at (http://127\.0\.0\.1:\d+/mcp)`)

func startScriptMCPHTTP(ts *testscript.TestScript, flags []string) *mcpHTTPScriptServer {
	bin, err := exec.LookPath("skillstore")
	ts.Check(err)
	cmd := exec.Command(bin, append([]string{"--store", ts.Getenv("SKILLSTORE_DIR"), "mcp", "--http", "127.0.0.1:0"}, flags...)...)
	cmd.Env = os.Environ()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "TZ", "NO_COLOR"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	srv := &mcpHTTPScriptServer{cmd: cmd, stderr: &mcpSyncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = srv.stderr
	ts.Check(cmd.Start())
	go func() { srv.done <- cmd.Wait() }()
	ts.Defer(func() { cmd.Process.Kill() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := servingLine.FindStringSubmatch(srv.stderr.String()); m != nil {
			srv.url = m[1]
			return srv
		}
		select {
		case err := <-srv.done:
			ts.Fatalf("mcphttp start: the server exited (%v) before serving:\n%s", err, srv.stderr.String())
		default:
		}
	}
	ts.Fatalf("mcphttp start: the server did not say where it serves within 30s:\n%s", srv.stderr.String())
	return nil
}

// scriptToken reads a TOKEN argument into an Authorization header: "-"
// none, @FILE the token in FILE, SCHEME:@FILE that token in another scheme
// (Basic:@alice.token), else a literal token.
func scriptToken(ts *testscript.TestScript, arg string) string {
	if arg == "-" {
		return ""
	}
	scheme, file, ok := strings.Cut(arg, ":@")
	if !ok {
		scheme, file, ok = "Bearer", strings.TrimPrefix(arg, "@"), strings.HasPrefix(arg, "@")
	}
	if ok {
		return scheme + " " + strings.TrimSpace(ts.ReadFile(file))
	}
	return "Bearer " + arg
}

// expandedFile is FILE's content with each {{xN}} expanded.
func expandedFile(ts *testscript.TestScript, file string) []byte {
	var b bytes.Buffer
	ts.Check(writeExpanded(&b, strings.TrimRight(ts.ReadFile(file), "\n")))
	return b.Bytes()
}

// scriptPost sends one POST as an MCP client of the 2025-11-25 protocol
// does and returns the status, the headers and the body's first 4 KB.
func scriptPost(url, auth string, body io.Reader) (int, http.Header, []byte, error) {
	req, err := http.NewRequest("POST", url, body)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("POST %s: %w", url, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header, out, nil
}
