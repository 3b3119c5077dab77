package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// DefaultTimeout is the connect and idle deadline of a fetch when
// Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Options bound a fetch's time on the network.
type Options struct {
	// Timeout is both the connect deadline (opening the connection and
	// receiving the server's list of refs) and the idle deadline (how long
	// the server may stay silent while the pack is awaited or streamed).
	// A slow but steady transfer is never cut off. Zero means
	// DefaultTimeout.
	Timeout time.Duration
	// HelperDir is the working folder of the git processes a fetch from
	// a local repository runs (see [Command]): the store. "" is the
	// system's temporary folder.
	HelperDir string
	// Allow, when set, is asked about the repository every HTTP
	// redirect of the fetch leads to (its canonical URL): the source
	// policy, which the first URL passed before the fetch. An error
	// refuses the redirect before it is followed (see [RedirectError]).
	Allow func(url string) error
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// ErrTimeout is matched (errors.Is) by a *TimeoutError.
var ErrTimeout = errors.New("fetch timed out")

// TimeoutError is a fetch the server left without an answer past the
// deadline, at one step of the exchange.
type TimeoutError struct {
	URL     string
	Step    string // "connecting", "listing refs", "waiting for the pack", "receiving the pack"
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no answer from the server for %s while %s (raise --fetch-timeout if the server is only slow)", e.Timeout, e.Step)
}

// Is makes errors.Is(err, ErrTimeout) true.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// watchdog cancels its context when the fetch makes no progress for the
// timeout. go-git's sessions stop a blocked read when their context ends
// (and close the connection), so one timer covers every transport: each
// step that made progress resets it.
type watchdog struct {
	ctx     context.Context
	cancel  context.CancelFunc
	timeout time.Duration
	url     string

	mu      sync.Mutex
	step    string
	timer   *time.Timer
	expired bool
}

func newWatchdog(ctx context.Context, url string, timeout time.Duration) *watchdog {
	w := &watchdog{timeout: timeout, url: url, step: "connecting"}
	w.ctx, w.cancel = context.WithCancel(ctx)
	w.timer = time.AfterFunc(timeout, w.expire)
	return w
}

func (w *watchdog) expire() {
	w.mu.Lock()
	w.expired = true
	w.mu.Unlock()
	w.cancel()
}

// progress records that the fetch moved on (to step, when not ""), which
// restarts the idle deadline.
func (w *watchdog) progress(step string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.expired {
		return
	}
	if step != "" {
		w.step = step
	}
	w.timer.Reset(w.timeout)
}

func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel()
}

// explain turns an error that followed the watchdog's expiry, or a
// network timeout of the same deadline (an HTTP client's wait for
// response headers), into a TimeoutError naming the step; other errors
// pass through.
func (w *watchdog) explain(err error) error {
	if err == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var netErr net.Error
	if w.expired || errors.As(err, &netErr) && netErr.Timeout() {
		return &TimeoutError{URL: w.url, Step: w.step, Timeout: w.timeout}
	}
	return err
}

// progressReader restarts the watchdog on every read that brought data.
type progressReader struct {
	r io.Reader
	w *watchdog
}

func (p progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.w.progress("")
	}
	return n, err
}

// openSession opens an upload-pack session on tr within the watchdog's
// deadline. Some transports dial without a context (git://, ssh://): the
// dial runs on its own goroutine, which is left to the system's connect
// timeout when the deadline passes first.
func openSession(w *watchdog, tr transport.Transport, ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	type opened struct {
		s   transport.UploadPackSession
		err error
	}
	done := make(chan opened, 1)
	go func() {
		s, err := tr.NewUploadPackSession(ep, auth)
		done <- opened{s, err}
	}()
	select {
	case o := <-done:
		return o.s, o.err
	case <-w.ctx.Done():
		go func() {
			if o := <-done; o.s != nil {
				o.s.Close()
			}
		}()
		return nil, w.ctx.Err()
	}
}

// Transport picks the transport of an endpoint: for a local path or a
// file:// URL, git upload-pack and receive-pack run as helpers in
// opts.HelperDir and killed when a session ends early (see
// localTransport); for HTTP(S), a client with dial, TLS and
// response-header deadlines of opts.Timeout; go-git's for git:// and ssh.
func Transport(ep *transport.Endpoint, opts Options) (transport.Transport, error) {
	switch ep.Protocol {
	case "file":
		return localTransport{dir: opts.HelperDir}, nil
	case "http", "https":
		return httpTransport(opts.timeout()), nil
	}
	return client.NewClient(ep)
}

// PushTransport picks the transport of a push: for a local path or a
// file:// URL the same helpers as Transport; go-git's for the others,
// without the response deadline of a fetch, since a server may run its
// hooks for a long time before it answers a push.
func PushTransport(ep *transport.Endpoint, opts Options) (transport.Transport, error) {
	if ep.Protocol == "file" {
		return localTransport{dir: opts.HelperDir}, nil
	}
	return client.NewClient(ep)
}

// httpClients keeps one HTTP transport per timeout, so connections to a
// host are reused across the plugins of a sync.
var httpClients sync.Map // time.Duration → transport.Transport

func httpTransport(timeout time.Duration) transport.Transport {
	if t, ok := httpClients.Load(timeout); ok {
		return t.(transport.Transport)
	}
	rt := HTTPTransport(timeout, 64)
	t, _ := httpClients.LoadOrStore(timeout, githttp.NewClient(&http.Client{Transport: rt, CheckRedirect: checkRedirect}))
	return t.(transport.Transport)
}

// HTTPTransport is the HTTP transport of every download from a source
// (git's smart HTTP, archives, indexes, registries): connecting, the TLS
// handshake and the wait for the response's headers each bounded by
// timeout, the environment's proxy honoured, up to maxIdlePerHost
// connections kept per host for reuse.
func HTTPTransport(timeout time.Duration, maxIdlePerHost int) *http.Transport {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   maxIdlePerHost,
		ForceAttemptHTTP2:     true,
	}
}
