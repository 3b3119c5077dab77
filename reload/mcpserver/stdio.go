package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"

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
	lw := &lockedWriter{w: w}
	pr, pw := io.Pipe()
	g := &lineGuard{in: r, out: pw, reply: lw, log: log}
	go g.run()
	return &mcp.IOTransport{Reader: pr, Writer: lw, MaxLineLength: MaxMessageSize + 1}
}

// lineGuard copies well-formed messages from in to out and answers the rest.
type lineGuard struct {
	in    io.Reader
	out   *io.PipeWriter
	reply *lockedWriter
	log   *slog.Logger
}

func (g *lineGuard) run() {
	br := bufio.NewReaderSize(g.in, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxMessageSize)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg := g.check(line, tooLong); msg != "" {
				g.log.Warn("mcp: message dropped", "reason", msg)
			} else if _, werr := g.out.Write(append(line, '\n')); werr != nil {
				return // the server has gone
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
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

// lockedWriter makes each Write whole with respect to the others.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
