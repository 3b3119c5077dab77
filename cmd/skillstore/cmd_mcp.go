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
		Usage:     "serve the published skills to agents over MCP (stdio)",
		ArgsUsage: "[--skill PATTERN]... [--no-audit] | --print-config AGENT",
		Description: "mcp is a Model Context Protocol server on stdin and stdout: an agent starts it\n" +
			"and finds and loads any published skill on demand, so a store of thousands of\n" +
			"skills costs the agent's context three short tools instead of one listing per\n" +
			"skill. It serves the latest version of every active skill (what export writes),\n" +
			"or those whose qualified name (NAME or PLUGIN:NAME) matches a --skill glob.\n\n" +
			"Tools: find_skills (words in, the best matches out: name, version, description,\n" +
			"ranked over names, descriptions and SKILL.md text), load_skill (a skill's\n" +
			"SKILL.md at its published version, with its version, commit and other files)\n" +
			"and read_skill_file (one of those files). Each SKILL.md is also a resource,\n" +
			"skill:///NAME/SKILL.md, and any file skill:///NAME/PATH; clients that subscribe\n" +
			"are told when the list changes.\n\n" +
			"Each call reads the store under its shared lock for that moment only: a running\n" +
			"server never holds up sync or export, and the next call after a sync or an\n" +
			"accepted candidate sees the new versions. Every load is logged (time, the\n" +
			"client's name from the handshake, skill, version, commit) in\n" +
			"STORE/skillstore/" + serve.LoadsFileName + " unless --no-audit; 'skillstore log --loads' reads it.\n\n" +
			"--print-config AGENT prints what AGENT needs to start this server, from its docs\n" +
			"(agents: " + strings.Join(mcpserver.ClientAgents(), ", ") + "), with this binary's path, the\n" +
			"store and the flags given.\n\n" +
			"Exit codes: 0 the client left; 1 cannot read the store; 2 usage error.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "skill", Usage: "serve only skills whose qualified name matches the glob `PATTERN` (repeatable)"},
			&cli.BoolFlag{Name: "no-audit", Usage: "do not log loads"},
			&cli.StringFlag{Name: "print-config", Usage: "print the configuration `AGENT` needs to start the server"},
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
				Version:     versionText(version, commit, info),
			})
		},
	}
}
