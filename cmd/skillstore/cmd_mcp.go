package main

import (
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/serve"
	"github.com/skillstore/skillstore/reload/mcpserver"
)

// mcp: the store as an MCP server (serve.MCP).

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:      "mcp",
		Category:  "targets",
		Usage:     "serve the published skills to agents over MCP (stdio, or HTTP with tokens)",
		ArgsUsage: "[--skill PATTERN]... [--no-audit] [--http ADDR] | --print-config AGENT | token add|list|rm",
		Description: "mcp is a Model Context Protocol server on stdin and stdout: an agent starts it\n" +
			"and finds and loads any published skill on demand, so a store of thousands of\n" +
			"skills costs the agent's context three short tools instead of one listing per\n" +
			"skill. It serves the latest version of every active skill (what export writes),\n" +
			"or those whose qualified name (NAME or PLUGIN:NAME) matches a --skill glob.\n\n" +
			"Tools: find_skills (words in, the best matches out: name, version, description,\n" +
			"ranked over names, descriptions and SKILL.md text), load_skill (a skill's\n" +
			"SKILL.md at its published version, with its version, commit and other files)\n" +
			"and read_skill_file (one of those files). Each SKILL.md is also a resource,\n" +
			"skill:///NAME/SKILL.md, and any file skill:///NAME/PATH, for hosts that read\n" +
			"resources.\n\n" +
			"Hosts that speak MCP's Skills extension (io.modelcontextprotocol/skills) list\n" +
			"every skill with skills/list and skills/get: its frontmatter as JSON, and each\n" +
			"of its files with the sha256 digest and size of its bytes, read as resources\n" +
			"skill://NAME/PATH (a managed skill), skill://PLUGIN/NAME/PATH (a plugin's;\n" +
			"skill://PLUGIN~/NAME/PATH when a managed skill is also named PLUGIN), with\n" +
			"resources/directory/read for folders. A version is pinned by a prefix:\n" +
			"skill://~v3/NAME/PATH and skill://PLUGIN~v3/NAME/PATH serve v3 for as long as\n" +
			"the store keeps it, so a host keeps loading what it approved. A skill whose\n" +
			"frontmatter name is missing or is not its store name is left out of the\n" +
			"extension (a note on stderr says why) and served by the tools. When the\n" +
			"published set moves, clients are sent notifications/resources/list_changed.\n\n" +
			"Each call reads the store under its shared lock for that moment only: a running\n" +
			"server never holds up sync or export, and the next call after a sync or an\n" +
			"accepted candidate sees the new versions. What the server read of the published\n" +
			"set (files' digests, frontmatter, search terms, each keyed by a git object id,\n" +
			"so it never goes stale) is kept in STORE/skillstore/" + mcpserver.IndexFileName + ": a server\n" +
			"started again reads only the versions published since. Every load\n" +
			"(load_skill, or a read of a SKILL.md) is logged (time, the client's name from\n" +
			"the handshake, skill, version, commit, and the manifest digest: sha256 of\n" +
			"sha256sum's listing of the version's files in path order) in\n" +
			"STORE/skillstore/" + serve.LoadsFileName + " unless --no-audit; 'skillstore log --loads' reads it.\n\n" +
			"--http ADDR serves MCP's streamable HTTP transport at http://ADDR/mcp to any\n" +
			"number of clients instead (ADDR host:port; a port alone, :8080 or 8080, listens\n" +
			"on 127.0.0.1 only: name a host, 0.0.0.0:8080, to take other machines). Every\n" +
			"request needs a bearer token made by 'skillstore mcp token add NAME' (the store\n" +
			"keeps its SHA-256 only, in STORE/skillstore/" + serve.TokensFileName + "); without a valid\n" +
			"one the answer is 401 and nothing else, and the loads log names the token's\n" +
			"holder. A body over 4 MiB is answered 413; a client over --rate requests a\n" +
			"second (bursts of twice that) 429; a request whose headers take over 10s or\n" +
			"whole over 30s is cut. --tls-cert and --tls-key serve HTTPS. SIGINT or SIGTERM\n" +
			"stops taking connections and lets requests under way finish (2s at most).\n\n" +
			"--print-config AGENT prints what AGENT needs to start this server, from its docs\n" +
			"(agents: " + strings.Join(mcpserver.ClientAgents(), ", ") + "), with this binary's path, the\n" +
			"store and the flags given.\n\n" +
			"Exit codes: 0 the client left (stdio) or a signal stopped the server (HTTP);\n" +
			"1 cannot read the store or listen; 2 usage error; 3 store lock busy (at start).",
		Subcommands: []*cli.Command{mcpTokenCommand()},
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "skill", Usage: "serve only skills whose qualified name matches the glob `PATTERN` (repeatable)"},
			&cli.BoolFlag{Name: "no-audit", Usage: "do not log loads"},
			&cli.StringFlag{Name: "print-config", Usage: "print the configuration `AGENT` needs to start the server"},
			&cli.StringFlag{Name: "http", Usage: "serve over HTTP at `ADDR` (host:port; a port alone listens on 127.0.0.1)"},
			&cli.StringFlag{Name: "tls-cert", Usage: "with --http, serve HTTPS with the certificate in `FILE` (PEM)"},
			&cli.StringFlag{Name: "tls-key", Usage: "with --http, the private key of --tls-cert in `FILE` (PEM)"},
			&cli.Float64Flag{Name: "rate", Value: mcpserver.DefaultRate, Usage: "with --http, the requests a second one client may make (`N`)"},
			newJSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return app.WithHint(app.UsageErrorf("mcp takes no arguments"), "run 'skillstore mcp --help' for usage")
			}
			info, _ := debug.ReadBuildInfo()
			return serve.MCP(c.Context, serve.MCPOptions{
				Global:      global(c),
				Output:      output(c),
				Skills:      c.StringSlice("skill"),
				NoAudit:     c.Bool("no-audit"),
				PrintConfig: c.String("print-config"),
				HTTP:        c.String("http"),
				TLSCert:     c.String("tls-cert"),
				TLSKey:      c.String("tls-key"),
				Rate:        c.Float64("rate"),
				Version:     versionText(version, commit, info),
			})
		},
	}
}

// mcpTokenCommand manages the HTTP transport's bearer tokens.
func mcpTokenCommand() *cli.Command {
	tokenArgs := func(c *cli.Context, n int) error {
		if c.NArg() != n {
			return app.WithHint(app.UsageErrorf("mcp token %s takes %d argument(s)", c.Command.Name, n), "run 'skillstore mcp token "+c.Command.Name+" --help' for usage")
		}
		return nil
	}
	return &cli.Command{
		Name:  "token",
		Usage: "make, list and revoke the bearer tokens of 'skillstore mcp --http'",
		Description: "One token per client or person, named by its holder. The store keeps each token's\n" +
			"SHA-256 only (STORE/skillstore/" + serve.TokensFileName + ", never pushed); a token is printed once,\n" +
			"by add. A running server reads the file again when it changes: a removed token\n" +
			"is refused from its next request on.",
		Subcommands: []*cli.Command{
			{
				Name:        "add",
				Usage:       "make a token for NAME and print it (once)",
				ArgsUsage:   "NAME",
				Description: "Exit codes: 0 made; 1 NAME has a token already; 2 usage error.",
				Flags:       []cli.Flag{newJSONFlag()},
				Action: func(c *cli.Context) error {
					if err := tokenArgs(c, 1); err != nil {
						return err
					}
					return serve.TokenAdd(c.Context, serve.TokenOptions{Global: global(c), Output: output(c), Name: c.Args().First()})
				},
			},
			{
				Name:        "list",
				Usage:       "list the tokens' holders and when each was made",
				Description: "Exit codes: 0 success; 1 the token file cannot be read; 2 usage error.",
				Flags:       []cli.Flag{newJSONFlag()},
				Action: func(c *cli.Context) error {
					if err := tokenArgs(c, 0); err != nil {
						return err
					}
					return serve.TokenList(c.Context, serve.TokenOptions{Global: global(c), Output: output(c)})
				},
			},
			{
				Name:        "rm",
				Usage:       "revoke NAME's token",
				ArgsUsage:   "NAME",
				Description: "Exit codes: 0 revoked; 1 no token of that name; 2 usage error.",
				Action: func(c *cli.Context) error {
					if err := tokenArgs(c, 1); err != nil {
						return err
					}
					return serve.TokenRemove(c.Context, serve.TokenOptions{Global: global(c), Output: output(c), Name: c.Args().First()})
				},
			},
		},
	}
}
