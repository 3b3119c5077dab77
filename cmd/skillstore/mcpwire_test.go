package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// wireClient speaks JSON-RPC to 'skillstore mcp' byte for byte, so a test
// sees the messages exactly as a host does (field names, error codes),
// with no SDK between: one request at a time, notifications kept.
type wireClient struct {
	t      *testing.T
	send   func(msg []byte) ([]json.RawMessage, error) // a request out, the messages that answer it in
	close  func()
	mu     sync.Mutex
	notes  []string // methods of the notifications received
	nextID int
}

// wireReply is one answer: its result, or its error.
type wireReply struct {
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// stdioWire starts the binary with args and speaks over its stdin and
// stdout.
func stdioWire(t *testing.T, args ...string) *wireClient {
	t.Helper()
	cmd := exec.Command(skillstoreBin(t), args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan []byte, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	c := &wireClient{t: t}
	c.send = func(msg []byte) ([]json.RawMessage, error) {
		if _, err := stdin.Write(append(msg, '\n')); err != nil {
			return nil, err
		}
		var id struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(msg, &id)
		if id.ID == nil { // a notification: no answer
			return nil, nil
		}
		var got []json.RawMessage
		deadline := time.After(30 * time.Second)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					return got, fmt.Errorf("the server closed its output (stderr: %s)", stderr.String())
				}
				got = append(got, line)
				var m struct {
					ID json.RawMessage `json:"id"`
				}
				if json.Unmarshal(line, &m) == nil && string(m.ID) == string(id.ID) {
					return got, nil
				}
			case <-deadline:
				return got, fmt.Errorf("no answer within 30s")
			}
		}
	}
	var once sync.Once
	c.close = func() {
		once.Do(func() {
			stdin.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("the server exited with %v\n%s", err, stderr.String())
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Error("the server did not exit within 10s of its stdin closing")
			}
		})
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return c
}

// call sends method with params and returns the answer, failing the test
// when none comes.
func (c *wireClient) call(method string, params any) wireReply {
	c.t.Helper()
	c.nextID++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	got, err := c.send(msg)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	var r wireReply
	for _, line := range got {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(line, &m)
		if m.ID == nil {
			c.mu.Lock()
			c.notes = append(c.notes, m.Method)
			c.mu.Unlock()
			continue
		}
		if err := json.Unmarshal(line, &r); err != nil {
			c.t.Fatalf("%s: answer %s: %v", method, line, err)
		}
	}
	return r
}

// ok calls method and decodes its result into v, failing on an error.
func (c *wireClient) ok(method string, params any, v any) json.RawMessage {
	c.t.Helper()
	r := c.call(method, params)
	if r.Error != nil {
		c.t.Fatalf("%s %v: error %d %s", method, params, r.Error.Code, r.Error.Message)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result, v); err != nil {
			c.t.Fatalf("%s: result %s: %v", method, r.Result, err)
		}
	}
	return r.Result
}

// notify sends a notification.
func (c *wireClient) notify(method string) {
	c.t.Helper()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	if _, err := c.send(msg); err != nil {
		c.t.Fatal(err)
	}
}

// initialize does the handshake (protocol 2025-11-25) and returns the
// server's result.
func (c *wireClient) initialize() json.RawMessage {
	c.t.Helper()
	res := c.ok("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "wire-test", "version": "1"}}, nil)
	c.notify("notifications/initialized")
	return res
}

// sawNote reports whether a notification of method came in.
func (c *wireClient) sawNote(method string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.notes {
		if n == method {
			return true
		}
	}
	return false
}
