package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageSize is the largest line StdioTransport passes to the
// protocol: a request longer than this is answered with an error and
// dropped, never buffered whole.
const MaxMessageSize = 4 << 20

// JSON-RPC 2.0 error codes for what never reaches the protocol.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// StdioTransport serves MCP over r and w, one JSON-RPC message a line, as
// the stdio transport does, with one difference that keeps an agent's
// skill source alive: a line that is not a JSON-RPC message (not JSON,
// not a message, or longer than MaxMessageSize) is answered with a
// JSON-RPC error (id null, or the request's id when one can be read) and
// dropped, where the SDK's transport ends the session on it. Replies are
// written one line per Write under one lock, so an error reply never
// splits a response of the server.
func StdioTransport(r io.Reader, w io.Writer, log *slog.Logger) mcp.Transport {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	inFlight := newInFlight()
	lw := &lockedWriter{w: w, answered: inFlight.answered}
	pr, pw := io.Pipe()
	g := &lineGuard{in: r, out: pw, reply: lw, log: log, inFlight: inFlight}
	go g.run()
	return &mcp.IOTransport{Reader: pr, Writer: lw, MaxLineLength: MaxMessageSize + 1}
}

// lineGuard copies well-formed messages from in to out and answers the rest.
type lineGuard struct {
	in       io.Reader
	out      *io.PipeWriter
	reply    *lockedWriter
	log      *slog.Logger
	inFlight *inFlight
}

func (g *lineGuard) run() {
	br := bufio.NewReaderSize(g.in, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxMessageSize)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg := g.check(line, tooLong); msg != "" {
				g.log.Warn("mcp: message dropped", "reason", msg)
			} else {
				g.inFlight.sent(line)
				if _, werr := g.out.Write(append(line, '\n')); werr != nil {
					return // the server has gone
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
				// A client that writes its requests and closes its end
				// (a script, a pipe) still gets every answer: the
				// session ends once they are written.
				g.inFlight.wait(drainTimeout)
			}
			g.out.CloseWithError(err)
			return
		}
	}
}

// check returns "" for a line to pass on, else why it was answered with
// an error instead.
func (g *lineGuard) check(line []byte, tooLong bool) string {
	if tooLong {
		g.replyError(nil, codeInvalidRequest, "message longer than 4 MiB")
		return "too long"
	}
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		g.replyError(nil, codeParseError, "parse error: not JSON")
		return "not JSON"
	}
	var items []json.RawMessage
	if line[0] == '[' {
		if json.Unmarshal(line, &items) != nil || len(items) == 0 {
			g.replyError(nil, codeInvalidRequest, "invalid request: empty or malformed batch")
			return "bad batch"
		}
	} else {
		items = []json.RawMessage{line}
	}
	for _, raw := range items {
		if _, err := jsonrpc.DecodeMessage(raw); err != nil {
			g.replyError(requestID(raw), codeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message")
			return "not JSON-RPC"
		}
	}
	return ""
}

// requestID is the "id" of a malformed request when it is a string or a
// number, so the client can match the error to what it sent.
func requestID(raw []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

func (g *lineGuard) replyError(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	if _, err := g.reply.Write(append(data, '\n')); err != nil {
		g.log.Debug("mcp: error reply not written", "err", err)
	}
}

// readLine reads one line without its newline. A line longer than limit
// is read to its end and dropped: tooLong is set and line is nil.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !tooLong {
			line = bytes.TrimSuffix(line, []byte("\n"))
		}
		return line, tooLong, err
	}
}

// lockedWriter makes each Write whole with respect to the others, and
// tells answered of each reply written.
type lockedWriter struct {
	mu       sync.Mutex
	w        io.Writer
	answered func(line []byte)
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if err == nil && l.answered != nil {
		l.answered(p)
	}
	return n, err
}

// drainTimeout bounds how long the end of a client's input waits for the
// answers to its last requests.
const drainTimeout = 30 * time.Second

// inFlight counts the requests passed to the server that it has not
// answered yet, by id.
type inFlight struct {
	mu      sync.Mutex
	pending map[string]int
	changed chan struct{} // closed and replaced at each answer
}

func newInFlight() *inFlight {
	return &inFlight{pending: map[string]int{}, changed: make(chan struct{})}
}

// message is the part of a JSON-RPC message inFlight reads.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// messages are the messages of a line: one, or a batch's.
func messages(line []byte) []message {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		var ms []message
		json.Unmarshal(line, &ms)
		return ms
	}
	var m message
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return []message{m}
}

// sent notes the requests of a line passed on (messages with an id and
// a method; notifications have no id and get no answer).
func (f *inFlight) sent(line []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range messages(line) {
		if len(m.ID) > 0 && m.Method != "" {
			f.pending[string(m.ID)]++
		}
	}
}

// answered notes the replies of a line written (an id, no method).
func (f *inFlight) answered(line []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range messages(line) {
		if id := string(m.ID); len(m.ID) > 0 && m.Method == "" && f.pending[id] > 0 {
			if f.pending[id]--; f.pending[id] == 0 {
				delete(f.pending, id)
			}
			close(f.changed)
			f.changed = make(chan struct{})
		}
	}
}

// wait returns once every request sent is answered, or after timeout.
func (f *inFlight) wait(timeout time.Duration) {
	deadline := time.After(timeout)
	for {
		f.mu.Lock()
		n, changed := len(f.pending), f.changed
		f.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			return
		}
	}
}

func (l *lockedWriter) Close() error { return nil }
