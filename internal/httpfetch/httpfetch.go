// Package httpfetch downloads the files of plugin sources that are not git
// repositories (an archive, a SKILL.md, a site's skills index, an npm
// package) over HTTP(S), as a fetch of a git source is bounded: a
// deadline for connecting and for every silence of the server, a cap on
// the bytes read, and every redirect checked by the source policy before
// it is followed. It reads bytes only; what they mean is the caller's.
package httpfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/gitfetch"
)

// DefaultTimeout is the connect and idle deadline when Options.Timeout is
// zero (as gitfetch.DefaultTimeout).
const DefaultTimeout = gitfetch.DefaultTimeout

// Options bound one download.
type Options struct {
	// Timeout bounds connecting and receiving the response's headers, and
	// then every silence of the server while the body streams: a slow but
	// steady download is never cut off. Zero means DefaultTimeout.
	Timeout time.Duration
	// Allow, when set, is asked about every URL a redirect leads to (in
	// canonical form, gitfetch.CanonicalURL): the source policy, which
	// checked the first URL before the download.
	Allow func(url string) error
	// MaxBytes caps the body; past it the download fails. Zero means
	// DefaultMaxBytes.
	MaxBytes int64
	// Accept is the request's Accept header ("" for none).
	Accept string
}

// DefaultMaxBytes caps a download when Options.MaxBytes is zero.
const DefaultMaxBytes = 64 << 20

// TooLargeError is a body past Options.MaxBytes.
type TooLargeError struct {
	URL   string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than the limit of %d MiB", e.URL, e.Limit>>20)
}

// StatusError is a response other than 200 OK.
type StatusError struct {
	URL    string
	Status string
	Code   int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: the server answered %s", e.URL, e.Status)
}

// ErrTimeout is matched by the error of a server that stayed silent past
// the deadline.
var ErrTimeout = errors.New("download timed out")

// Get downloads rawURL (http or https; a URL holding a control character
// is refused before any request) and returns its body.
func Get(ctx context.Context, rawURL string, opts Options) ([]byte, error) {
	if err := gitfetch.CheckURL(rawURL); err != nil {
		return nil, err
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s is not an http:// or https:// URL", rawURL)
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(withAllow(ctx, opts.Allow), http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rawURL, err)
	}
	req.Header.Set("User-Agent", "skillstore")
	if opts.Accept != "" {
		req.Header.Set("Accept", opts.Accept)
	}
	resp, err := clientFor(timeout).Do(req)
	if err != nil {
		return nil, explain(rawURL, timeout, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &StatusError{URL: rawURL, Status: resp.Status, Code: resp.StatusCode}
	}
	if resp.ContentLength > limit {
		return nil, &TooLargeError{URL: rawURL, Limit: limit}
	}
	// The idle deadline: each read that brings bytes moves it on.
	idle := time.AfterFunc(timeout, func() { cancel(ErrTimeout) })
	defer idle.Stop()
	body, err := io.ReadAll(io.LimitReader(progress{resp.Body, idle, timeout}, limit+1))
	if err != nil {
		if errors.Is(context.Cause(ctx), ErrTimeout) {
			return nil, fmt.Errorf("%s: no data from the server for %s (raise --fetch-timeout if the server is only slow): %w", rawURL, timeout, ErrTimeout)
		}
		return nil, fmt.Errorf("%s: %w", rawURL, err)
	}
	if int64(len(body)) > limit {
		return nil, &TooLargeError{URL: rawURL, Limit: limit}
	}
	return body, nil
}

// progress resets the idle timer on every read that brings bytes.
type progress struct {
	r     io.Reader
	idle  *time.Timer
	after time.Duration
}

func (p progress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.idle.Reset(p.after)
	}
	return n, err
}

// explain words a failed request: a deadline as a deadline, a refused
// redirect as its own error.
func explain(rawURL string, timeout time.Duration, err error) error {
	var redirect *RedirectError
	if errors.As(err, &redirect) {
		return redirect
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%s: no answer from the server for %s (raise --fetch-timeout if the server is only slow): %w", rawURL, timeout, ErrTimeout)
	}
	return fmt.Errorf("%s: %w", rawURL, err)
}

// RedirectError is a redirect the download refused.
type RedirectError struct {
	From, To string
	Err      error
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirects to %s, which is refused: %v", e.From, e.To, e.Err)
}

func (e *RedirectError) Unwrap() error { return e.Err }

type allowKey struct{}

func withAllow(ctx context.Context, allow func(string) error) context.Context {
	if allow == nil {
		return ctx
	}
	return context.WithValue(ctx, allowKey{}, allow)
}

// checkRedirect checks where a redirect leads as the first URL was: in
// canonical form, allowed by the policy, at most 10 hops, never from
// https down to http.
func checkRedirect(req *http.Request, via []*http.Request) error {
	from := via[len(via)-1].URL
	refuse := func(err error) error {
		return &RedirectError{From: from.Redacted(), To: req.URL.Redacted(), Err: err}
	}
	if len(via) >= 10 {
		return refuse(errors.New("more than 10 redirects"))
	}
	if from.Scheme == "https" && req.URL.Scheme != "https" {
		return refuse(errors.New("a redirect from https to http"))
	}
	canon, err := gitfetch.CanonicalURL(req.URL.String())
	if err != nil {
		return refuse(err)
	}
	if allow, ok := req.Context().Value(allowKey{}).(func(string) error); ok {
		if err := allow(canon); err != nil {
			return refuse(err)
		}
	}
	return nil
}

// clients keeps one client per timeout, so connections to a host are
// reused across the downloads of a sync.
var clients sync.Map // time.Duration → *http.Client

func clientFor(timeout time.Duration) *http.Client {
	if c, ok := clients.Load(timeout); ok {
		return c.(*http.Client)
	}
	rt := gitfetch.HTTPTransport(timeout, 16)
	c, _ := clients.LoadOrStore(timeout, &http.Client{Transport: rt, CheckRedirect: checkRedirect})
	return c.(*http.Client)
}
