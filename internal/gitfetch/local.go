package gitfetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/skillstore/skillstore/internal/procgroup"
)

// localTransport reaches a repository on this machine (a local path or a
// file:// URL) by running `git upload-pack` or `git receive-pack` on it as
// a helper process (see [Command]). go-git's own file transport waits for
// its process in Close; a process that is still writing (a pack the
// caller refused half way: an object over the size cap) then blocks on
// its full pipe forever, and the caller with it, holding the store lock.
// Here a session that ends before its exchange finished kills its
// process, and Close always reaps it: no git process outlives a fetch or
// a push, and none is left a zombie.
type localTransport struct {
	dir string // the helper's working folder
}

func (t localTransport) NewUploadPackSession(ep *transport.Endpoint, _ transport.AuthMethod) (transport.UploadPackSession, error) {
	p, err := startLocal(t.dir, transport.UploadPackServiceName, ep.Path)
	if err != nil {
		return nil, err
	}
	return &localUploadPack{p}, nil
}

func (t localTransport) NewReceivePackSession(ep *transport.Endpoint, _ transport.AuthMethod) (transport.ReceivePackSession, error) {
	p, err := startLocal(t.dir, transport.ReceivePackServiceName, ep.Path)
	if err != nil {
		return nil, err
	}
	return &localReceivePack{p}, nil
}

// localProc is a running git upload-pack or receive-pack and its pipes.
type localProc struct {
	service string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  *os.File // our end; closed by Close after the process is reaped
	stderr  *headBuffer

	// killMu orders kills before the reaping: once Close starts to wait
	// for the process, its pid (and process group) may be reused, and
	// nothing may be signalled any more.
	killMu  sync.Mutex
	reaping bool

	mu       sync.Mutex
	advRefs  *packp.AdvRefs
	stopKill func() bool // undoes the context watch of the current step
	finished bool        // the exchange ended normally: Close waits, never kills
	closed   bool
	waitErr  error
}

func startLocal(dir, service, path string) (*localProc, error) {
	if path == "" {
		return nil, fmt.Errorf("%s: no repository path", service)
	}
	// "git upload-pack", not "git-upload-pack": no search of git's exec
	// path, which go-git does by running git once more.
	cmd := Command(context.Background(), dir, strings.TrimPrefix(service, "git-"), "--", path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	cmd.Stdout = pw
	stderr := &headBuffer{max: 4096}
	cmd.Stderr = stderr
	// Its own process group, so a kill reaches git pack-objects too; and
	// a child left holding stderr never keeps Wait waiting.
	procgroup.New(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		stdin.Close()
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("%s %s: %w", service, path, err)
	}
	pw.Close() // the child holds its copy
	return &localProc{service: service, cmd: cmd, stdin: stdin, stdout: pr, stderr: stderr}, nil
}

// watch kills the process when ctx ends during the current step (a
// deadline, a cancel): a read blocked on its pipe then returns.
func (p *localProc) watch(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopKill != nil {
		p.stopKill()
	}
	p.stopKill = context.AfterFunc(ctx, p.kill)
}

func (p *localProc) kill() {
	p.killMu.Lock()
	defer p.killMu.Unlock()
	if !p.reaping && p.cmd.Process != nil {
		procgroup.Kill(p.cmd) // an error means it has exited already
	}
}

// ctxErr prefers ctx's error to what a read of a killed process returned.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// advertisedRefs reads the refs the process advertises first.
func (p *localProc) advertisedRefs(ctx context.Context) (*packp.AdvRefs, error) {
	if p.advRefs != nil {
		return p.advRefs, nil
	}
	p.watch(ctx)
	ar := packp.NewAdvRefs()
	err := ar.Decode(p.stdout)
	switch {
	case err == nil:
	case errors.Is(err, packp.ErrEmptyAdvRefs) && p.service == transport.ReceivePackServiceName:
		// An empty repository: nothing to advertise, still a target.
	case errors.Is(err, packp.ErrEmptyAdvRefs):
		return nil, transport.ErrEmptyRemoteRepository
	case ctx.Err() != nil:
		return nil, ctx.Err()
	default:
		return nil, p.failure(err)
	}
	transport.FilterUnsupportedCapabilities(ar.Capabilities)
	p.advRefs = ar
	return ar, nil
}

// failure explains a session that ended early from what git printed.
func (p *localProc) failure(err error) error {
	p.mu.Lock()
	p.closeLocked()
	p.mu.Unlock()
	msg := strings.TrimSpace(p.stderr.String())
	msg = strings.TrimPrefix(msg, "fatal: ")
	switch {
	case strings.Contains(msg, "does not appear to be a git repository"):
		return transport.ErrRepositoryNotFound
	case msg != "":
		first, _, _ := strings.Cut(msg, "\n")
		return fmt.Errorf("git %s: %s", strings.TrimPrefix(p.service, "git-"), first)
	}
	return err
}

// Close ends the session: the process is killed unless its exchange
// finished, then reaped, and the pipes are closed.
func (p *localProc) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closeLocked()
}

func (p *localProc) closeLocked() error {
	if p.closed {
		return p.waitErr
	}
	p.closed = true
	if p.stopKill != nil {
		p.stopKill()
	}
	p.stdin.Close()
	if !p.finished {
		p.kill()
	}
	p.killMu.Lock()
	p.reaping = true
	p.killMu.Unlock()
	if p.finished {
		// What it still says (a hook's output) must not block it.
		io.Copy(io.Discard, p.stdout)
	}
	err := p.cmd.Wait()
	p.stdout.Close()
	if p.finished {
		p.waitErr = err
	}
	return p.waitErr
}

// localUploadPack is a fetch from a local repository.
type localUploadPack struct{ *localProc }

func (s *localUploadPack) AdvertisedReferences() (*packp.AdvRefs, error) {
	return s.advertisedRefs(context.Background())
}

func (s *localUploadPack) AdvertisedReferencesContext(ctx context.Context) (*packp.AdvRefs, error) {
	return s.advertisedRefs(ctx)
}

// UploadPack sends the request and returns the server's answer, the pack
// following it. Closing the answer closes the session; so does an answer
// read to its end, which also lets the process go.
func (s *localUploadPack) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	if req.IsEmpty() {
		return nil, transport.ErrEmptyUploadPackRequest
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if _, err := s.advertisedRefs(ctx); err != nil {
		return nil, err
	}
	s.watch(ctx)
	if err := encodeUploadRequest(s.stdin, req); err != nil {
		return nil, s.failure(ctxErr(ctx, err))
	}
	res := packp.NewUploadPackResponse(req)
	if err := res.Decode(procReader{s.localProc, ctx}); err != nil {
		return nil, s.failure(ctxErr(ctx, fmt.Errorf("read the upload-pack answer: %w", err)))
	}
	return res, nil
}

// encodeUploadRequest writes a fetch request: wants, haves, done.
func encodeUploadRequest(w io.WriteCloser, req *packp.UploadPackRequest) error {
	if err := req.UploadRequest.Encode(w); err != nil {
		return fmt.Errorf("send the wants: %w", err)
	}
	if err := req.UploadHaves.Encode(w, true); err != nil {
		return fmt.Errorf("send the haves: %w", err)
	}
	if err := pktline.NewEncoder(w).Encodef("done\n"); err != nil {
		return fmt.Errorf("send done: %w", err)
	}
	return w.Close()
}

// procReader reads the process's output; its Close closes the session.
type procReader struct {
	p   *localProc
	ctx context.Context
}

func (r procReader) Read(b []byte) (int, error) {
	n, err := r.p.stdout.Read(b)
	if err != nil && err != io.EOF {
		err = ctxErr(r.ctx, err)
	}
	return n, err
}

func (r procReader) Close() error { return r.p.Close() }

// localReceivePack is a push to a local repository.
type localReceivePack struct{ *localProc }

func (s *localReceivePack) AdvertisedReferences() (*packp.AdvRefs, error) {
	return s.advertisedRefs(context.Background())
}

func (s *localReceivePack) AdvertisedReferencesContext(ctx context.Context) (*packp.AdvRefs, error) {
	return s.advertisedRefs(ctx)
}

// ReceivePack sends the ref updates and the pack, and reads the server's
// report of what it did.
func (s *localReceivePack) ReceivePack(ctx context.Context, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	if _, err := s.advertisedRefs(ctx); err != nil {
		return nil, err
	}
	s.watch(ctx)
	if err := req.Encode(s.stdin); err != nil {
		return nil, s.failure(ctxErr(ctx, err))
	}
	if err := s.stdin.Close(); err != nil {
		return nil, s.failure(ctxErr(ctx, err))
	}
	if !req.Capabilities.Supports(capability.ReportStatus) {
		s.mu.Lock()
		s.finished = true
		s.mu.Unlock()
		return nil, s.Close()
	}
	var r io.Reader = procReader{s.localProc, ctx}
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		d := sideband.NewDemuxer(sideband.Sideband64k, r)
		d.Progress, r = req.Progress, d
	case req.Capabilities.Supports(capability.Sideband):
		d := sideband.NewDemuxer(sideband.Sideband, r)
		d.Progress, r = req.Progress, d
	}
	report := packp.NewReportStatus()
	if err := report.Decode(r); err != nil {
		return nil, s.failure(ctxErr(ctx, err))
	}
	s.mu.Lock()
	s.finished = true
	s.mu.Unlock()
	if err := report.Error(); err != nil {
		s.Close()
		return report, err
	}
	return report, s.Close()
}

// headBuffer keeps the first max bytes written to it (a helper's stderr)
// and drops the rest, so a chatty process never grows memory.
type headBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - h.buf.Len(); room > 0 {
		h.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}
