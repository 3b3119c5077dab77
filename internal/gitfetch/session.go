package gitfetch

import (
	"context"
	"errors"
	"io"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// Session is one connection to a git repository for a fetch: its list of
// refs, then at most one pack, every step within the deadlines of
// [Options] (connecting and listing within Timeout, then no silence
// longer than Timeout). A sync's fetch and a pull both use it, so a
// server that accepts and never answers fails either with a
// *TimeoutError.
type Session struct {
	w    *watchdog
	sess transport.UploadPackSession
	adv  *packp.AdvRefs
}

// Open puts url in canonical form ([CanonicalURL]: the form the source
// policy checked), connects to the repository there with auth (nil:
// none, or the user and password the URL holds) and reads its refs. An
// HTTP redirect is followed only when its target passes opts.Allow
// (else a *RedirectError). A repository without refs is
// transport.ErrEmptyRemoteRepository. The caller closes the session.
func Open(ctx context.Context, url string, auth transport.AuthMethod, opts Options) (*Session, error) {
	url, err := CanonicalURL(url)
	if err != nil {
		return nil, err
	}
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return nil, err
	}
	tr, err := Transport(ep, opts)
	if err != nil {
		return nil, err
	}
	w := newWatchdog(withAllow(ctx, opts.Allow), url, opts.timeout())
	sess, err := openSession(w, tr, ep, auth)
	if err != nil {
		w.stop()
		return nil, w.explain(err)
	}
	w.progress("listing refs")
	adv, err := sess.AdvertisedReferencesContext(w.ctx)
	if err != nil {
		sess.Close()
		w.stop()
		var redirect *RedirectError
		if errors.As(err, &redirect) {
			return nil, redirect
		}
		return nil, w.explain(err)
	}
	w.progress("")
	return &Session{w: w, sess: sess, adv: adv}, nil
}

// Refs is what the repository advertised.
func (s *Session) Refs() *packp.AdvRefs { return s.adv }

// FetchPack asks for req's wants and copies the pack they come in
// (side-band demultiplexed) into dst as it arrives; every read that
// brings data restarts the idle deadline. A write error of dst (a pack
// refused half way: an object over the size cap) ends the fetch at once
// and is returned as it is; the session is then good only for Close,
// which stops the server's side without waiting for the rest. Nothing is
// asked when req is empty (every want is here already).
func (s *Session) FetchPack(req *packp.UploadPackRequest, dst io.Writer) error {
	s.w.progress("waiting for the pack")
	resp, err := s.sess.UploadPack(s.w.ctx, req)
	if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
		return nil
	}
	if err != nil {
		return s.w.explain(err)
	}
	defer resp.Close()
	s.w.progress("receiving the pack")
	var pack io.Reader = progressReader{r: resp, w: s.w}
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		pack = sideband.NewDemuxer(sideband.Sideband64k, pack)
	case req.Capabilities.Supports(capability.Sideband):
		pack = sideband.NewDemuxer(sideband.Sideband, pack)
	}
	if _, err := io.Copy(writerOnly{dst}, readerOnly{pack}); err != nil {
		var werr *writeError
		if errors.As(err, &werr) {
			return werr.err
		}
		return s.w.explain(err)
	}
	return nil
}

// Close ends the session and its deadlines. A server process on this
// machine is killed unless it finished, and reaped.
func (s *Session) Close() error {
	err := s.sess.Close()
	s.w.stop()
	return err
}

// writeError marks an error of FetchPack's destination, so that it is
// told apart from a read error of the connection.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

type writerOnly struct{ w io.Writer }

func (w writerOnly) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		return n, &writeError{err}
	}
	return n, nil
}

// readerOnly hides any WriterTo of the reader, so io.Copy goes through
// writerOnly.
type readerOnly struct{ r io.Reader }

func (r readerOnly) Read(p []byte) (int, error) { return r.r.Read(p) }
