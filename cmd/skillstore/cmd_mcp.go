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
			"accepted candidate sees the new versions. Every load (load_skill, or a read of a\n" +
			"SKILL.md) is logged (time, the client's name from the handshake, skill,\n" +
			"version, commit, and the manifest digest: sha256 of sha256sum's listing of the\n" +
			"version's files in path order) in\n" +
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
