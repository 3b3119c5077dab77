package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload/mcpserver"
)

// LoadsFileName is the MCP server's audit log of loads, in the store's
// local folder: one JSON line per skill version an agent loaded.
const LoadsFileName = "loads.jsonl"

// MCPOptions are mcp's options.
type MCPOptions struct {
	app.Global
	app.Output
	// Skills, when set, serves only the published skills whose qualified
	// name matches one of these globs (path.Match).
	Skills []string
	// NoAudit keeps no log of loads.
	NoAudit bool
	// PrintConfig names an agent: print what it needs to start the server
	// instead of serving.
	PrintConfig string
	// Name is the server's name in agents' configurations.
	Name string
	// Version is skillstore's, told to clients at the handshake.
	Version string
	// Poll is how often a running server checks for a changed published
	// set between calls (0: mcpserver's default).
	Poll time.Duration
	// HTTP, when set, is the address to serve the HTTP transport at
	// instead of stdio; a port alone listens on 127.0.0.1.
	HTTP string
	// TLSCert and TLSKey serve HTTPS.
	TLSCert, TLSKey string
	// Rate is the requests a second one HTTP client may make.
	Rate float64
}

// TokensFileName holds the HTTP transport's token hashes, in the store's
// local folder.
const TokensFileName = "mcp-tokens.json"

// MCP serves the store's published skills to one agent over stdin and
// stdout until the agent leaves, or prints an agent's configuration.
func MCP(ctx context.Context, opts MCPOptions) error {
	for _, g := range opts.Skills {
		if _, err := path.Match(g, ""); err != nil {
			return app.UsageErrorf("bad --skill pattern %q: %v", g, err)
		}
	}
	if opts.Name == "" {
		opts.Name = "skillstore"
	}
	if opts.PrintConfig != "" {
		return printMCPConfig(opts)
	}
	if opts.HTTP == "" && (opts.TLSCert != "" || opts.TLSKey != "") {
		return app.UsageErrorf("--tls-cert and --tls-key go with --http")
	}
	if (opts.TLSCert == "") != (opts.TLSKey == "") {
		return app.UsageErrorf("give both --tls-cert and --tls-key, or neither")
	}
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	// The index file is this machine's derived data, beside the stat
	// caches: a dry run reads it and writes nothing; a store this process
	// cannot write is served without it being written.
	so := mcpserver.Options{Name: opts.Name, Version: opts.Version, Poll: opts.Poll, Logger: opts.Log,
		Note:      func(msg string) { cliout.Printf(opts.Stderr, "skillstore: note: %s\n", msg) },
		IndexFile: s.LocalPath(mcpserver.IndexFileName), IndexReadOnly: s.IsDryRun()}
	if len(opts.Skills) > 0 {
		so.Select = func(name string) bool {
			for _, g := range opts.Skills {
				if ok, _ := path.Match(g, name); ok {
					return true
				}
			}
			return false
		}
	}
	if !opts.NoAudit && !s.IsDryRun() {
		so.Audit = mcpserver.NewAuditLog(s.LocalPath(LoadsFileName), 0)
	}
	srv := mcpserver.New(mcpserver.NewStoreCatalog(s), so)
	if opts.HTTP != "" {
		return serveHTTP(ctx, srv, opts, mcpserver.NewTokens(s.LocalPath(TokensFileName)))
	}
	t := mcpserver.StdioTransport(opts.Stdin, opts.Stdout, opts.Log)
	err = srv.Run(ctx, t)
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
}

// serveHTTP listens at opts.HTTP and serves until ctx ends (a signal).
func serveHTTP(ctx context.Context, srv *mcpserver.Server, opts MCPOptions, tokens *mcpserver.Tokens) error {
	addr := opts.HTTP
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	if list, err := tokens.List(); err != nil {
		return err
	} else if len(list) == 0 {
		cliout.Println(opts.Stderr, "skillstore: note: no token made yet: every request is refused until 'skillstore mcp token add NAME' makes one")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen at %s: %w", addr, err)
	}
	scheme := "http"
	if opts.TLSCert != "" {
		scheme = "https"
	}
	return srv.ServeHTTP(ctx, ln, mcpserver.HTTPOptions{
		Tokens: tokens, Rate: opts.Rate, CertFile: opts.TLSCert, KeyFile: opts.TLSKey,
		Ready: func(a string) { cliout.Printf(opts.Stderr, "skillstore: serving MCP at %s://%s/mcp\n", scheme, a) },
	})
}

// TokenOptions are 'mcp token' options.
type TokenOptions struct {
	app.Global
	app.Output
	// Name is the token's holder.
	Name string
}

func (o TokenOptions) tokens(ctx context.Context) (*mcpserver.Tokens, error) {
	s, err := o.OpenStore(ctx)
	if err != nil {
		return nil, err
	}
	return mcpserver.NewTokens(s.LocalPath(TokensFileName)), nil
}

// TokenAdd makes a token and prints it.
func TokenAdd(ctx context.Context, opts TokenOptions) error {
	t, err := opts.tokens(ctx)
	if err != nil {
		return err
	}
	token, err := t.Add(ctx, opts.Name, time.Now())
	if err != nil {
		return err
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, map[string]string{"name": opts.Name, "token": token})
	}
	cliout.Println(opts.Stdout, token)
	cliout.Printf(opts.Stderr, "skillstore: note: the token of %s is printed once; clients send it as 'Authorization: Bearer TOKEN'\n", opts.Name)
	return nil
}

// TokenList prints the tokens' holders.
func TokenList(ctx context.Context, opts TokenOptions) error {
	t, err := opts.tokens(ctx)
	if err != nil {
		return err
	}
	list, err := t.List()
	if err != nil {
		return err
	}
	if opts.JSON {
		if list == nil {
			list = []mcpserver.Token{}
		}
		return cliout.JSON(opts.Stdout, list)
	}
	if len(list) == 0 {
		cliout.Println(opts.Stderr, "no tokens ('skillstore mcp token add NAME' makes one)")
		return nil
	}
	tb := cliout.NewTable(-1)
	tb.Add("NAME", "CREATED")
	for _, tk := range list {
		tb.Add(tk.Name, tk.Created.Local().Format("2006-01-02 15:04:05"))
	}
	return tb.Write(opts.Stdout, cliout.NewPainter(opts.Stdout), 0)
}

// TokenRemove revokes a token.
func TokenRemove(ctx context.Context, opts TokenOptions) error {
	t, err := opts.tokens(ctx)
	if err != nil {
		return err
	}
	if err := t.Remove(ctx, opts.Name); err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "revoked the token of %s\n", opts.Name)
	return nil
}

// printMCPConfig prints what opts.PrintConfig's agent needs to start this
// binary as the server, with the store given to this command.
func printMCPConfig(opts MCPOptions) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the skillstore binary: %w", err)
	}
	argv := []string{exe}
	if opts.Store != "" {
		dir, err := filepath.Abs(opts.Store)
		if err != nil {
			return err
		}
		argv = append(argv, "--store", dir)
	}
	argv = append(argv, "mcp")
	for _, g := range opts.Skills {
		argv = append(argv, "--skill", g)
	}
	if opts.NoAudit {
		argv = append(argv, "--no-audit")
	}
	cfg, err := mcpserver.ClientConfigFor(strings.ToLower(opts.PrintConfig), opts.Name, argv)
	if err != nil {
		return app.UsageErrorf("%v", err)
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, cfg)
	}
	// The snippet is printed raw: it holds our binary's path and the
	// user's own flags, and is meant to be pasted as it is.
	var b strings.Builder
	if cfg.Command != "" {
		fmt.Fprintf(&b, "# add it with %s's own command:\n%s\n\n# or merge this into %s:\n", cfg.Agent, cfg.Command, cfg.File)
	} else {
		fmt.Fprintf(&b, "# merge this into %s:\n", cfg.File)
	}
	fmt.Fprintf(&b, "%s\n# format: %s\n", strings.TrimRight(cfg.Snippet, "\n"), cfg.Doc)
	_, err = io.WriteString(cliout.Raw(opts.Stdout), b.String())
	return err
}

// LoadsOptions are 'log --loads' options.
type LoadsOptions struct {
	app.Global
	app.Output
	// Skill, when set, lists only loads of skills matching this glob.
	Skill string
}

// Loads prints the MCP server's log of loads: which agent loaded which
// version of which skill, when; oldest first.
func Loads(ctx context.Context, opts LoadsOptions) error {
	if opts.Skill != "" {
		if _, err := path.Match(opts.Skill, ""); err != nil {
			return app.UsageErrorf("bad skill pattern %q: %v", opts.Skill, err)
		}
	}
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	loads, bad, err := mcpserver.ReadLoads(s.LocalPath(LoadsFileName), 0)
	if err != nil {
		return err
	}
	if bad > 0 {
		cliout.Printf(opts.Stderr, "skillstore: note: skipped %s of %s that hold no load record\n", app.Plural(bad, "line"), s.LocalPath(LoadsFileName))
	}
	out := loads[:0]
	for _, l := range loads {
		if ok, _ := path.Match(opts.Skill, l.Skill); opts.Skill == "" || ok {
			out = append(out, l)
		}
	}
	if opts.JSON {
		if out == nil {
			out = []mcpserver.Load{}
		}
		return cliout.JSON(opts.Stdout, out)
	}
	if len(out) == 0 {
		cliout.Println(opts.Stderr, "no loads recorded (agents load skills through 'skillstore mcp')")
		return nil
	}
	t := cliout.NewTable(-1)
	t.Add("TIME", "CLIENT", "SKILL", "VERSION", "COMMIT", "VIA")
	for _, l := range out {
		client := l.Client
		if l.ClientVersion != "" {
			client += " " + l.ClientVersion
		}
		if l.Token != "" {
			client += " (token " + l.Token + ")"
		}
		commit := l.Commit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		t.Add(l.Time.Local().Format("2006-01-02 15:04:05"), client, l.Skill, fmt.Sprintf("v%d", l.Version), commit, l.Via)
	}
	return t.Write(opts.Stdout, cliout.NewPainter(opts.Stdout), 0)
}
