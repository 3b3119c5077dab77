package main

import (
	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app/ui"
)

// ui: a local web page to review candidates and look at the store
// (ui.Serve).

func uiCommand() *cli.Command {
	return &cli.Command{
		Name:     "ui",
		Category: "review",
		Usage:    "serve a local web page to review candidates, skills, targets and loads",
		Description: "ui serves a web page on 127.0.0.1 (a free port unless --addr names one) and\n" +
			"prints its address with a one-time token: the first request with the token gets\n" +
			"a session cookie, and every request needs that cookie (a request with neither is\n" +
			"answered 401). The page answers only to its own address as Host, so another site\n" +
			"cannot reach it through a DNS name of its own. --open opens it in $BROWSER, else\n" +
			"the system's browser.\n\n" +
			"Pages: Candidates (the list; one candidate with its base, published and upstream\n" +
			"versions side by side, changed words marked, the merged result with its conflict\n" +
			"hunks, what accepting changes in each target, and buttons to accept, reject or\n" +
			"resolve in $VISUAL/$EDITOR, running the candidates commands' own code); Skills\n" +
			"(search, a skill's versions with who made each, how, and what it merged in: the\n" +
			"upstream snapshot or the candidate; a diff of any two, risk findings, files); Targets (each target's skills and\n" +
			"their state, its skills list against its agent's budget and what the agent cuts\n" +
			"first); Activity (the loads log of 'skillstore mcp' over time per skill and per\n" +
			"client, the candidates waiting, the latest versions).\n\n" +
			"Every page shows what a command prints with --json, named at its foot; each\n" +
			"request reads the store under its shared lock for that moment only, and the page\n" +
			"reloads itself when the store changes. Every action carries a CSRF token, no\n" +
			"CORS header is sent, and the Content-Security-Policy allows only the page's own\n" +
			"script and style files; skill text is shown as text, never as HTML.\n\n" +
			"--read-only shows no button and refuses every action, to show a team's store;\n" +
			"--addr with an address other machines reach needs --allow-remote.\n\n" +
			"Exit codes: 0 stopped by SIGINT or SIGTERM; 1 cannot read the store or listen;\n" +
			"2 usage error.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "listen at `ADDR` (host:port; port 0: a free one)"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "let --addr be an address other machines reach, and any Host name"},
			&cli.BoolFlag{Name: "open", Usage: "open the page in the browser"},
			&cli.BoolFlag{Name: "read-only", Usage: "show no button and refuse every action"},
		},
		Action: func(c *cli.Context) error {
			if _, err := storeArgs(c, 0, 0); err != nil {
				return err
			}
			return ui.Serve(c.Context, ui.Options{Global: global(c), Addr: c.String("addr"), AllowRemote: c.Bool("allow-remote"),
				Open: c.Bool("open"), ReadOnly: c.Bool("read-only")})
		},
	}
}
