package gitfetch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// HTTP redirects. A git server may answer the first request of a fetch
// (GET .../info/refs) with a redirect, and go-git then fetches from where
// it leads. The source policy checked the first URL only, so each
// redirect is checked as that URL was, before it is followed: its target
// must be in canonical form ([CanonicalURL]: what is fetched is what is
// checked) and allowed by Options.Allow. go-git itself refuses a redirect
// of any later request, a change of scheme other than http to https, and
// more than 10 hops.

// RedirectError is an HTTP redirect a fetch refused.
type RedirectError struct {
	From string // the repository URL that answered with the redirect, any password hidden
	To   string // the repository URL it leads to, any password hidden
	Err  error  // why: the source policy's refusal, or a *URLError
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the server of %s redirects to %s, which is refused: %v", e.From, e.To, e.Err)
}

func (e *RedirectError) Unwrap() error { return e.Err }

// redirectKey keys the Options.Allow of a fetch in its requests' context:
// one HTTP client serves every fetch (see httpTransport).
type redirectKey struct{}

func withAllow(ctx context.Context, allow func(string) error) context.Context {
	if allow == nil {
		return ctx
	}
	return context.WithValue(ctx, redirectKey{}, allow)
}

// infoRefs ends the path of the request a fetch is redirected on.
const infoRefs = "/info/refs"

// checkRedirect is the CheckRedirect of the fetches' HTTP client: req is
// the request a redirect leads to, via those before it.
func checkRedirect(req *http.Request, via []*http.Request) error {
	from := repositoryOf(via[len(via)-1].URL)
	to := repositoryOf(req.URL)
	refused := func(err error) error {
		return &RedirectError{From: escapeURL(from), To: escapeURL(to), Err: err}
	}
	if !strings.HasSuffix(req.URL.Path, infoRefs) {
		return refused(fmt.Errorf("%s is not a repository's %s", escapeURL(req.URL.String()), infoRefs))
	}
	canon, err := CanonicalURL(to)
	if err != nil {
		return refused(err)
	}
	// The request goes out as the server wrote it: it must already be
	// in canonical form, else the server could resolve it otherwise than
	// the policy reads it.
	if c, err := url.Parse(canon); err != nil || c.Path != strings.TrimSuffix(req.URL.Path, infoRefs) {
		return refused(&URLError{URL: escapeURL(to), Part: "path", Value: strconv.QuoteToASCII(strings.TrimSuffix(req.URL.Path, infoRefs)), Reason: "holds '.', '..' or empty segments: a redirect must name the repository as it is"})
	}
	if allow, ok := req.Context().Value(redirectKey{}).(func(string) error); ok {
		if err := allow(canon); err != nil {
			return refused(err)
		}
	}
	return nil
}

// repositoryOf is the repository URL of a request of a fetch: its URL
// without the query and the /info/refs that go-git adds.
func repositoryOf(u *url.URL) string {
	r := *u
	r.RawQuery, r.ForceQuery, r.Fragment, r.RawFragment = "", false, "", ""
	s := r.String()
	if p := r.EscapedPath(); strings.HasSuffix(p, infoRefs) {
		s = strings.TrimSuffix(s, infoRefs)
	}
	return s
}
