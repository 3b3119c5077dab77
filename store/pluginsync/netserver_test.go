package pluginsync

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
)

// inProcessGitServer serves the repositories under base over the git://
// protocol (upload-pack, protocol v0) from this process, with go-git's
// server side: a connection costs a goroutine, not the fork and exec of
// `git daemon --serve` and `git upload-pack` that git daemon pays for
// each. The network benchmarks measure against it as well as against git
// daemon, to tell the client's cost from the server's on a machine whose
// few cores both share.
//
// A client that finds every ref it wants already present sends a flush
// after the ref advertisement and hangs up; one that wants objects is
// answered with go-git's upload-pack (no multi_ack: a go-git client's
// request, which names its haves and ends with "done" in one go).
// Errors are printed: a benchmark's figures are then suspect.
func inProcessGitServer(b testing.TB, base string) *gitServer {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	gs := &gitServer{addr: ln.Addr().String()}
	srv := server.NewServer(server.NewFilesystemLoader(osfs.New(base)))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			gs.conns.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				if err := gs.serveUploadPack(srv, c); err != nil {
					println("in-process git server:", err.Error())
				}
			}()
		}
	}()
	b.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return gs
}

// gitServer is an inProcessGitServer's address and what it served.
type gitServer struct {
	addr string
	// conns counts connections, packRequests the ones on which the
	// client asked for objects after the ref advertisement.
	conns, packRequests atomic.Int64
}

// serveUploadPack answers one git:// connection.
func (gs *gitServer) serveUploadPack(srv transport.Transport, c net.Conn) error {
	var req packp.GitProtoRequest
	if err := req.Decode(c); err != nil {
		if err == packp.ErrInvalidGitProtoRequest { // unwrapped: closed before asking anything
			return nil
		}
		return err
	}
	if req.RequestCommand != transport.UploadPackServiceName {
		return io.ErrUnexpectedEOF
	}
	sess, err := srv.NewUploadPackSession(&transport.Endpoint{Path: req.Pathname}, nil)
	if err != nil {
		return err
	}
	defer sess.Close()
	adv, err := sess.AdvertisedReferencesContext(context.Background())
	if err != nil {
		return err
	}
	if err := adv.Encode(c); err != nil {
		return err
	}
	// A flush right after the advertisement: the client has everything.
	head := make([]byte, 4)
	if _, err := io.ReadFull(c, head); err != nil || string(head) == "0000" {
		return nil
	}
	gs.packRequests.Add(1)
	r := io.MultiReader(bytes.NewReader(head), c)
	up := packp.NewUploadPackRequest()
	if err := up.Decode(r); err != nil {
		return err
	}
	// The wants end with a flush; the haves follow, ended by "done".
	lines := pktline.NewScanner(r)
	for lines.Scan() {
		line := strings.TrimSuffix(string(lines.Bytes()), "\n")
		if line == "done" {
			break
		}
		if h, ok := strings.CutPrefix(line, "have "); ok {
			up.Haves = append(up.Haves, plumbing.NewHash(h))
		}
	}
	if err := lines.Err(); err != nil {
		return err
	}
	resp, err := sess.UploadPack(context.Background(), up)
	if err != nil {
		return err
	}
	defer resp.Close()
	return resp.Encode(c)
}
