package mcpserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions tune ServeHTTP.
type HTTPOptions struct {
	// Tokens are the bearer tokens accepted; a request without one of
	// them is answered 401 and nothing else.
	Tokens *Tokens
	// Rate is how many requests a second one client may make (its token's
	// holder; before a token is known, its address), with bursts of twice
	// that; over it a request is answered 429. 0: DefaultRate.
	Rate float64
	// CertFile and KeyFile, when set, serve HTTPS.
	CertFile, KeyFile string
	// Ready, when set, is called with the address listened on once the
	// server accepts connections.
	Ready func(addr string)
}

// modernProtocol is the first protocol version without sessions.
const modernProtocol = "2026-07-28"

// DefaultRate is HTTPOptions.Rate's default, in requests a second.
const DefaultRate = 50

// Bounds of one HTTP request: its headers must arrive within
// headerTimeout and the whole request within readTimeout, so a client
// that never finishes holds a connection that long and no longer; an
// idle connection is closed after idleTimeout. On shutdown, requests under
// way get shutdownGrace to finish.
const (
	headerTimeout = 10 * time.Second
	readTimeout   = 30 * time.Second
	idleTimeout   = 2 * time.Minute
	maxHeader     = 64 << 10
	sessionIdle   = 30 * time.Minute
	shutdownGrace = 2 * time.Second
)

// ServeHTTP serves MCP's streamable HTTP transport on ln (at /mcp, and /)
// to any number of clients until ctx ends, then shuts down gracefully:
// no new connection is taken, requests under way get shutdownGrace to
// finish. Each request needs a bearer token of opts.Tokens; bodies over
// MaxMessageSize are answered 413, clients over their rate 429.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	if opts.Tokens == nil {
		return errors.New("serve MCP over HTTP: no token file")
	}
	if opts.Rate <= 0 {
		opts.Rate = DefaultRate
	}
	ctx, stop, err := s.start(ctx)
	if err != nil {
		return err
	}
	defer stop()
	// Clients of the 2026-07-28 protocol send every request whole, with
	// its version in a header; the SDK serves them statelessly, and the
	// clients of earlier versions (a session, its notification stream)
	// statefully.
	getServer := func(*http.Request) *mcp.Server { return s.mcp }
	sessions := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger: s.opts.Logger, SessionTimeout: sessionIdle, MaxRequestBodyBytes: MaxMessageSize,
	})
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger: s.opts.Logger, Stateless: true, MaxRequestBodyBytes: MaxMessageSize,
	})
	mcpHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= modernProtocol {
			stateless.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	})
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		holder, ok := opts.Tokens.Holder(token)
		if !ok {
			return nil, fmt.Errorf("%w: not a token of this server ('skillstore mcp token add NAME' makes one)", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{UserID: holder}, nil
	}
	authed := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(mcpHandler)
	limits := newLimiter(opts.Rate, 2*opts.Rate)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := "addr " + hostOf(r.RemoteAddr)
		holder, known := opts.Tokens.Holder(bearer(r))
		if known {
			key = "token " + holder
		}
		if !limits.allow(key, time.Now()) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many requests: slow down", http.StatusTooManyRequests)
			return
		}
		if r.ContentLength > MaxMessageSize {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if !known {
			unauthorized(w, r)
			return
		}
		authed.ServeHTTP(w, r)
	})
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: headerTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeader,
		ErrorLog:          nil,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	if opts.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
		if err != nil {
			return fmt.Errorf("serve MCP over HTTPS: %w", err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if opts.Ready != nil {
		opts.Ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close() // streams still open past the grace: cut them
	}
	return nil
}

// unauthorized answers a request without a token of this server: 401
// with the challenge that RFC 6750 (and MCP's authorization, which
// builds on it) requires of every 401, with error="invalid_token" when a
// bearer token came, and a message saying what to do. Nothing else is
// sent.
func unauthorized(w http.ResponseWriter, r *http.Request) {
	challenge, msg := `Bearer realm="skillstore"`, "no bearer token"
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, _, _ := strings.Cut(h, " ")
	switch {
	case h != "" && !strings.EqualFold(scheme, "bearer"):
		msg = "no bearer token (the Authorization header is of another scheme)"
	case bearer(r) != "":
		challenge += `, error="invalid_token"`
		msg = "not a token of this server"
	}
	w.Header().Set("WWW-Authenticate", challenge)
	http.Error(w, msg+": 'skillstore mcp token add NAME' on the server makes one; send it as 'Authorization: Bearer TOKEN'", http.StatusUnauthorized)
}

// bearer is the request's bearer token, "" if none.
func bearer(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

func hostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// limiter is a token bucket per client: rate requests a second, burst at
// most. Buckets full again are dropped, so its memory follows the clients
// active in the last seconds.
type limiter struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(rate, burst float64) *limiter {
	return &limiter{rate: rate, burst: burst, buckets: map[string]*bucket{}}
}

func (l *limiter) allow(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > 10*time.Second {
		for k, b := range l.buckets {
			if b.tokens+now.Sub(b.at).Seconds()*l.rate >= l.burst {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
