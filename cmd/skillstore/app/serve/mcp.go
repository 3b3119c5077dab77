package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
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
}

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
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	so := mcpserver.Options{Name: opts.Name, Version: opts.Version, Poll: opts.Poll, Logger: opts.Log,
		Note: func(msg string) { cliout.Printf(opts.Stderr, "skillstore: note: %s\n", msg) }}
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
	t := mcpserver.StdioTransport(opts.Stdin, opts.Stdout, opts.Log)
	err = srv.Run(ctx, t)
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
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
		commit := l.Commit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		t.Add(l.Time.Local().Format("2006-01-02 15:04:05"), client, l.Skill, fmt.Sprintf("v%d", l.Version), commit, l.Via)
	}
	return t.Write(opts.Stdout, cliout.NewPainter(opts.Stdout), 0)
}
