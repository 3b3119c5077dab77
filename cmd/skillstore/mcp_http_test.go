package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// mcpHTTPServer is 'skillstore mcp --http 127.0.0.1:0' running as a real
// process, and the address it said it serves at.
type mcpHTTPServer struct {
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT/mcp
	addr   string // 127.0.0.1:PORT
	stderr *mcpSyncBuffer
	done   chan error
}

type mcpSyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *mcpSyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *mcpSyncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func startMCPHTTP(t testing.TB, storeDir string, flags ...string) *mcpHTTPServer {
	t.Helper()
	cmd := exec.Command(skillstoreBin(t), append([]string{"--store", storeDir, "mcp", "--http", "127.0.0.1:0"}, flags...)...)
	s := &mcpHTTPServer{cmd: cmd, stderr: &mcpSyncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	re := regexp.MustCompile(`serving MCP at (http://(127\.0\.0\.1:\d+)/mcp)`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(s.stderr.String()); m != nil {
			s.url, s.addr = m[1], m[2]
			return s
		}
		select {
		case err := <-s.done:
			t.Fatalf("the server exited (%v) before serving:\n%s", err, s.stderr.String())
		default:
		}
	}
	t.Fatalf("the server did not say where it serves within 30s:\n%s", s.stderr.String())
	return nil
}

// httpWire is a wireClient over the streamable HTTP transport (protocol
// 2025-11-25: a session, and a GET stream for the server's
// notifications), sending token.
func httpWire(t *testing.T, url, token string) *wireClient {
	t.Helper()
	c := &wireClient{t: t}
	var session string
	ctx, cancel := context.WithCancel(context.Background())
	client := &http.Client{Timeout: 60 * time.Second}
	c.send = func(msg []byte) ([]json.RawMessage, error) {
		req, _ := http.NewRequest("POST", url, bytes.NewReader(msg))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" && session == "" {
			session = id
			go c.listen(ctx, url, token, session)
		}
		if resp.StatusCode == http.StatusAccepted {
			return nil, nil
		}
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(resp.Body)
			return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, body)
		}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			body, err := io.ReadAll(resp.Body)
			return []json.RawMessage{body}, err
		}
		return mcpSSEMessages(resp.Body)
	}
	c.close = func() {
		cancel()
		if session != "" {
			req, _ := http.NewRequest("DELETE", url, nil)
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Authorization", "Bearer "+token)
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}
	return c
}

// mcpSSEMessages reads the data of each event of an event stream.
func mcpSSEMessages(r io.Reader) ([]json.RawMessage, error) {
	var out []json.RawMessage
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, json.RawMessage(data))
		}
	}
	return out, sc.Err()
}

// listen keeps the session's GET stream open, noting each notification.
func (c *wireClient) listen(ctx context.Context, url, token, session string) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var m struct{ Method string }
			if json.Unmarshal([]byte(data), &m) == nil && m.Method != "" {
				c.mu.Lock()
				c.notes = append(c.notes, m.Method)
				c.mu.Unlock()
			}
		}
	}
}

// TestSkillsExtensionConformanceOverHTTP walks the extension's MUSTs
// (walkSkillsConformance) over the streamable HTTP transport of the real
// binary, with a bearer token whose holder the loads log names.
func TestSkillsExtensionConformanceOverHTTP(t *testing.T) {
	storeDir := skillsFixture(t, 600)
	token := strings.TrimSpace(mustRun(t, storeDir, "mcp", "token", "add", "alice"))
	srv := startMCPHTTP(t, storeDir)
	c := httpWire(t, srv.url, token)
	defer c.close()
	walkSkillsConformance(t, storeDir, c, "alice")
}

// mcpPost sends one POST to url with token ("" for none) and returns the
// status and body.
func mcpPost(t *testing.T, url, token string, body io.Reader) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`

// TestMCPOverHTTPRefusesBadInput: over HTTP, with real processes on
// 127.0.0.1, a request without a token and one with a wrong or revoked
// token get 401 and nothing of the store; a 20 MB body gets 413; 1,000
// requests in a second from one client get 429 past its rate while
// another client is served; a client that never finishes its headers, or
// its body, is cut off after the timeouts while others are served; and
// SIGTERM stops the server at once, exit 0.
func TestMCPOverHTTPRefusesBadInput(t *testing.T) {
	storeDir := skillsFixture(t, 0)
	alice := strings.TrimSpace(mustRun(t, storeDir, "mcp", "token", "add", "alice"))
	bob := strings.TrimSpace(mustRun(t, storeDir, "mcp", "token", "add", "bob"))
	if list := mustRun(t, storeDir, "mcp", "token", "list"); !strings.Contains(list, "alice") || strings.Contains(list, alice) {
		t.Errorf("token list shows no alice, or her token:\n%s", list)
	}
	srv := startMCPHTTP(t, storeDir, "--rate", "20")
	served := func(who, token string) {
		t.Helper()
		if code, body := mcpPost(t, srv.url, token, strings.NewReader(initializeBody)); code != 200 || !strings.Contains(body, "io.modelcontextprotocol/skills") {
			t.Errorf("%s: a good request got %d %.200s", who, code, body)
		}
	}
	served("alice", alice)

	// No token, a wrong one: 401 and nothing else.
	for _, tok := range []string{"", "sst_wrong", alice + "x", "Basic " + alice} {
		code, body := mcpPost(t, srv.url, tok, strings.NewReader(initializeBody))
		if code != 401 || strings.Contains(body, "skill") && !strings.Contains(body, "skillstore mcp token add") {
			t.Errorf("token %.12q: %d %q, want 401 and no content", tok, code, body)
		}
	}

	// 20 MB: 413, with and without a Content-Length; the server lives.
	big := bytes.Repeat([]byte("x"), 20<<20)
	if code, _ := mcpPost(t, srv.url, alice, bytes.NewReader(big)); code != 413 {
		t.Errorf("a 20 MB body: %d, want 413", code)
	}
	if code, _ := mcpPost(t, srv.url, alice, io.MultiReader(bytes.NewReader(big))); code != 413 {
		t.Errorf("a 20 MB chunked body: %d, want 413", code)
	}
	served("bob after 20 MB bodies", bob)

	// A flood: 1,000 requests in about a second from alice.
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	start := time.Now()
	for i := range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * time.Millisecond)
			code, _ := mcpPost(t, srv.url, alice, strings.NewReader(initializeBody))
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
		if i == 500 {
			served("bob during alice's flood", bob)
		}
	}
	wg.Wait()
	t.Logf("flood of 1,000 in %v: %v", time.Since(start).Round(time.Millisecond), codes)
	if codes[429] < 900 || codes[200]+codes[429] != 1000 {
		t.Errorf("flood: %v, want at least 900 429s and only 200s besides", codes)
	}

	// Slow clients: headers never finished; a body never finished.
	slow := func(partial string) net.Conn {
		conn, err := net.Dial("tcp", srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Write([]byte(partial)); err != nil {
			t.Fatal(err)
		}
		return conn
	}
	headers := slow("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + bob + "\r\n")
	body := slow("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + bob + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":")
	began := time.Now()
	time.Sleep(1100 * time.Millisecond)
	served("bob beside two slow clients", bob)
	cut := func(name string, conn net.Conn, within time.Duration) {
		t.Helper()
		conn.SetReadDeadline(began.Add(within))
		_, err := io.ReadAll(conn)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("%s: the connection is still open after %v", name, within)
		} else {
			t.Logf("%s: cut after %v", name, time.Since(began).Round(time.Second))
		}
	}
	cut("slow headers", headers, 15*time.Second)
	cut("slow body", body, 35*time.Second)

	// Revoked: alice's token is refused from the next request on.
	mustRun(t, storeDir, "mcp", "token", "rm", "alice")
	time.Sleep(1100 * time.Millisecond) // a fresh bucket for alice's address
	if code, _ := mcpPost(t, srv.url, alice, strings.NewReader(initializeBody)); code != 401 {
		t.Errorf("a revoked token: %d, want 401", code)
	}

	// SIGTERM: the server stops at once and exits 0.
	srv.cmd.Process.Signal(syscall.SIGTERM)
	stop := time.Now()
	select {
	case err := <-srv.done:
		if err != nil {
			t.Errorf("after SIGTERM: %v\n%s", err, srv.stderr.String())
		}
		t.Logf("stopped %v after SIGTERM", time.Since(stop).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Error("the server still runs 5s after SIGTERM")
	}
	if _, err := net.DialTimeout("tcp", srv.addr, time.Second); err == nil {
		t.Error("the port still takes connections after the server stopped")
	}
}
