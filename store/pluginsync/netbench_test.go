package pluginsync

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// The network benchmarks: git plugins served by a real `git daemon` on
// 127.0.0.1 through latencyProxy, which adds a fixed delay to each
// direction (a round trip costs twice the delay), as a link to a distant
// server does, with the same cost for skillstore and for git.

// latencyProxy forwards TCP connections to target, delivering every chunk
// delay after it was sent, in order; a new connection's first bytes
// arrive no sooner than the TCP handshake's round trip would allow.
type latencyProxy struct {
	ln     net.Listener
	target atomic.Value // string: where connections go
	delay  atomic.Int64 // nanoseconds; 0 forwards at once (set-up)
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn // closed at the end, so no copy outlives the proxy

	// accepted counts connections; roundTrips counts, over all of them,
	// each time the server answered after the client had sent something
	// (the request, then each negotiation step): the round trips after
	// the TCP handshake.
	accepted, roundTrips atomic.Int64
}

// counts returns the connections and round trips since the last call.
func (p *latencyProxy) counts() (conns, roundTrips int64) {
	return p.accepted.Swap(0), p.roundTrips.Swap(0)
}

func newLatencyProxy(b *testing.B, target string) *latencyProxy {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	p := &latencyProxy{ln: ln}
	p.target.Store(target)
	p.wg.Add(1)
	go p.serve()
	b.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *latencyProxy) addr() string { return p.ln.Addr().String() }

func (p *latencyProxy) serve() {
	defer p.wg.Done()
	dials := make(chan struct{}, 4)
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.accepted.Add(1)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			var clientSpoke atomic.Bool
			d := time.Duration(p.delay.Load())
			established := time.Now().Add(2 * d) // SYN, SYN-ACK
			dials <- struct{}{}
			up, err := dialPatiently(p.target.Load().(string))
			<-dials
			if err != nil {
				c.Close()
				return
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				delayedCopy(up, c, d, established, func() { clientSpoke.Store(true) })
				up.(*net.TCPConn).CloseWrite()
			}()
			delayedCopy(c, up, d, time.Time{}, func() {
				if clientSpoke.Swap(false) {
					p.roundTrips.Add(1)
				}
			})
			c.Close()
			up.Close()
		}()
	}
}

// dialPatiently connects to git daemon, whose listen backlog of 5 drops
// the SYNs of a burst of connections (each then waits the kernel's 1 s
// retransmission): a few dials at a time, each retried after 100 ms,
// keep that artefact of the local daemon out of the figures.
func dialPatiently(addr string) (net.Conn, error) {
	var err error
	for range 50 {
		var c net.Conn
		if c, err = net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			return c, nil
		}
	}
	return nil, err
}

// delayedCopy copies src to dst, each chunk written delay after it was
// read (and not before notBefore+delay); read is called as each chunk
// is read.
func delayedCopy(dst io.Writer, src io.Reader, delay time.Duration, notBefore time.Time, read func()) {
	type chunk struct {
		data []byte
		due  time.Time
	}
	queue := make(chan chunk, 1024)
	go func() {
		defer close(queue)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				read()
				sent := time.Now()
				if sent.Before(notBefore) {
					sent = notBefore
				}
				queue <- chunk{buf[:n], sent.Add(delay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range queue {
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.data); err != nil {
			for range queue {
			}
			return
		}
	}
}

// gitDaemon runs `git daemon` serving every repository under base on a
// free port of 127.0.0.1 and returns its address.
func gitDaemon(b *testing.B, base string) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	ln.Close()
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--export-all", "--base-path="+base,
		"--listen=127.0.0.1", fmt.Sprintf("--port=%d", addr.Port), base)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if err := cmd.Start(); err != nil {
		b.Skip("git daemon cannot start: ", err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for range 200 {
		if c, err := net.Dial("tcp", addr.String()); err == nil {
			c.Close()
			return addr.String()
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatal("git daemon did not listen within 2s")
	return ""
}

// benchGitRepos makes n bare repositories under base, each a plugin of
// three skills named after it, and returns their names.
func benchGitRepos(b testing.TB, base string, n int) []string {
	b.Helper()
	work := b.TempDir()
	var names []string
	for i := range n {
		name := fmt.Sprintf("plugin%02d", i)
		dir := filepath.Join(work, name)
		for s := range 3 {
			skill := fmt.Sprintf("%s-s%d", name, s)
			storetest.WriteFile(b, filepath.Join(dir, "skills", skill, "SKILL.md"), benchSkill(skill, ""))
		}
		storetest.RunGit(b, dir, nil, "init", "-q", "-b", "main")
		storetest.RunGit(b, dir, nil, "add", "-A")
		storetest.RunGit(b, dir, nil, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first")
		storetest.RunGit(b, work, nil, "clone", "-q", "--bare", dir, filepath.Join(base, name+".git"))
		names = append(names, name)
	}
	return names
}

// timeIt runs fn once and returns how long it took.
func timeIt(b *testing.B, fn func() error) time.Duration {
	b.Helper()
	start := time.Now()
	if err := fn(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

func shell(dir, script string) func() error {
	return func() error {
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", script, err, out)
		}
		return nil
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkListWhileSyncHung: `list` (Store.List) while a sync waits on a
// git server that accepted the connection and never answers, beside the
// same list with no sync running.
func BenchmarkListWhileSyncHung(b *testing.B) {
	storetest.NeedGit(b)
	base := b.TempDir()
	names := benchGitRepos(b, base, 3)
	s := storetest.NewStore(b)
	for _, name := range names[:2] {
		src, err := plugins.ParseSource(filepath.Join(base, name+".git"), "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Add(context.Background(), s, src, AddOptions{ID: name}); err != nil {
			b.Fatal(err)
		}
	}
	// The third plugin's server hangs: it is added while it answers
	// (through a proxy to git daemon), then the proxy forwards to a
	// listener that never answers.
	hung, accepted := hangingListener(b)
	proxy := newLatencyProxy(b, gitDaemon(b, base))
	src, err := plugins.ParseSource("git://"+proxy.addr()+"/"+names[2]+".git", "")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Add(context.Background(), s, src, AddOptions{ID: names[2]}); err != nil {
		b.Fatal(err)
	}
	proxy.target.Store(hung)

	list := func() error { _, err := s.List(context.Background(), false); return err }
	var idle, during time.Duration
	b.ResetTimer()
	for range b.N {
		idle += timeIt(b, list)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { _, err := Run(ctx, s, Options{}); done <- err }()
		<-accepted
		during += timeIt(b, list)
		cancel()
		<-done
	}
	n := float64(b.N)
	b.ReportMetric(ms(during)/n, "list-during-hung-sync-ms")
	b.ReportMetric(ms(idle)/n, "list-idle-ms")
	b.ReportMetric(float64(during)/float64(idle), "ratio")
}

// hangingListener accepts connections and never answers; accepted gets
// one value per connection.
func hangingListener(b *testing.B) (string, chan struct{}) {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	accepted := make(chan struct{}, 1024)
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			accepted <- struct{}{}
		}
	}()
	b.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String(), accepted
}
