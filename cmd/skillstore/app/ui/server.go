package ui

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/serve"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

// Options are ui's.
type Options struct {
	app.Global
	// Addr is where to listen (default 127.0.0.1:0, a free port).
	Addr string
	// AllowRemote lets Addr be other than a loopback address, and the
	// page be asked for by any Host name.
	AllowRemote bool
	// Open opens the page in the browser ($BROWSER, else the system's).
	Open bool
	// ReadOnly shows no button and refuses every action.
	ReadOnly bool
	// Poll is how often the page asks whether the store changed (0: 2s).
	Poll time.Duration
	// Listening, when set, is called with the page's URL (token
	// included) once the server listens: a test seam.
	Listening func(url string)
}

//go:embed assets
var assets embed.FS

// Server is the page: its guard, templates and options.
type Server struct {
	opts  Options
	guard *guard
	pages map[string]*template.Template
	mux   *http.ServeMux
}

// New makes the page's server; Handler serves it.
func New(opts Options) (*Server, error) {
	if opts.Poll == 0 {
		opts.Poll = 2 * time.Second
	}
	s := &Server{opts: opts, guard: newGuard(), pages: map[string]*template.Template{}, mux: http.NewServeMux()}
	for _, page := range []string{"candidates", "candidate", "skills", "skill", "diff", "targets", "activity", "error"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "assets/layout.html", "assets/parts.html", "assets/"+page+".html")
		if err != nil {
			return nil, fmt.Errorf("ui template %s: %w", page, err)
		}
		s.pages[page] = t
	}
	static, err := fs.Sub(assets, "assets/static")
	if err != nil {
		return nil, err
	}
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/candidates", http.StatusSeeOther)
	})
	s.mux.HandleFunc("GET /candidates", s.candidates)
	s.mux.HandleFunc("GET /candidate", s.candidate)
	s.mux.HandleFunc("POST /candidate/{action}", s.act)
	s.mux.HandleFunc("GET /skills", s.skills)
	s.mux.HandleFunc("GET /skill", s.skill)
	s.mux.HandleFunc("GET /diff", s.diff)
	s.mux.HandleFunc("GET /targets", s.targets)
	s.mux.HandleFunc("GET /activity", s.activity)
	s.mux.HandleFunc("GET /stamp", s.stamp)
	return s, nil
}

// Handler is the guarded page.
func (s *Server) Handler() http.Handler { return s.guard.wrap(s.mux) }

// URL is the page's address at addr with the one-time token.
func (s *Server) URL(addr net.Addr) string {
	return "http://" + addr.String() + "/?token=" + s.guard.token
}

// Serve listens and serves the page until ctx ends (SIGINT, SIGTERM).
func Serve(ctx context.Context, opts Options) error {
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return app.UsageErrorf("ui --addr %q: %v (give host:port, e.g. 127.0.0.1:8080)", addr, err)
	}
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" && !opts.AllowRemote {
		return app.WithHint(app.UsageErrorf("ui --addr %s is not a loopback address: the page would be reachable from other machines", addr),
			"add --allow-remote to serve it there (with --read-only to show a team store), or listen on 127.0.0.1")
	}
	// The store must open before anything is served.
	if _, err := opts.OpenStore(ctx); err != nil {
		return err
	}
	s, err := New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("ui: listen on %s: %w", addr, err)
	}
	if !opts.AllowRemote {
		s.guard.allowHosts(ln.Addr())
	}
	url := s.URL(ln.Addr())
	mode := ""
	if opts.ReadOnly {
		mode = " (read-only)"
	}
	cliout.Printf(opts.Stdout, "skillstore ui%s: %s\n", mode, url)
	cliout.Printf(opts.Stderr, "the link works once, in one browser; Ctrl-C stops the server\n")
	if opts.Listening != nil {
		opts.Listening(url)
	}
	if opts.Open {
		if err := openBrowser(url); err != nil {
			cliout.Printf(opts.Stderr, "skillstore: note: could not open a browser (%v): open the link yourself\n", err)
		}
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(stop)
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil // stopped as asked
}

// openBrowser opens url in $BROWSER, else the system's browser, without
// waiting for it.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch b := os.Getenv("BROWSER"); {
	case b != "":
		cmd = exec.Command(b, url)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", url)
	case runtime.GOOS == "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// stamp answers a digest of the store's refs and of the loads log's
// size: the page reloads itself when it changes. It reads the refs
// under the shared lock, for this request only.
func (s *Server) stamp(w http.ResponseWriter, r *http.Request) {
	st, err := s.opts.OpenStore(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := sha256.New()
	err = st.View(r.Context(), func(rd *store.Reader) error {
		for _, name := range rd.RefNames("") {
			id, _ := rd.Ref(name)
			fmt.Fprintf(h, "%s %s\n", name, id)
		}
		return nil
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if fi, err := os.Stat(st.LocalPath(serve.LoadsFileName)); err == nil {
		fmt.Fprintf(h, "loads %d %d\n", fi.Size(), fi.ModTime().UnixNano())
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(w, hex.EncodeToString(h.Sum(nil))[:16])
}

// page is what every template gets besides its own data.
type page struct {
	Title, Nav string
	CSRF       string
	ReadOnly   bool
	PollMS     int64
	// Commands are the CLI commands whose --json carries this page's data.
	Commands []string
	// Flash is the outcome of the last action; Error one that failed.
	Flash, Error string
	Data         any
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, p page) {
	p.CSRF, p.ReadOnly, p.PollMS = s.guard.csrf, s.opts.ReadOnly, s.opts.Poll.Milliseconds()
	if p.Flash == "" {
		p.Flash = r.URL.Query().Get("flash")
	}
	if p.Error == "" {
		p.Error = r.URL.Query().Get("error")
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	if err := s.pages[name].Execute(&b, p); err != nil {
		http.Error(w, "skillstore ui: "+err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write([]byte(b.String()))
}

// errorText is err as the CLI prints it: the message, then its hints.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	text := err.Error()
	var e *app.Error
	if errors.As(err, &e) {
		for _, h := range e.Hints {
			text += "\nhint: " + h
		}
	}
	return text
}

// fail shows an error page: what failed, with its hints.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, nav string, status int, err error) {
	w.WriteHeader(status)
	s.render(w, r, "error", page{Title: "error", Nav: nav, Error: errorText(err)})
}
