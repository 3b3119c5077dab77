package main

import (
	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/store/safety"
)

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:      "audit",
		Category:  "skills",
		Usage:     "run the safety check on stored skills and report the findings (text, JSON or SARIF)",
		ArgsUsage: "[NAME[@VERSION]...]",
		Description: "audit runs today's safety check on the whole of each named version (the latest\n" +
			"version of every skill when none is named), not only on what it changed, and prints\n" +
			"one line per finding: level, file:line, what it does and why it matters. A finding\n" +
			"repeated in a file is one line with a count.\n\n" +
			"--format json prints {\"skills\": [...]} with each finding's rule; --format sarif\n" +
			"prints a SARIF 2.1.0 log (one rule per check, each finding located by file and\n" +
			"line, under PLUGIN/NAME/) for code-scanning UIs and CI.\n\n" +
			"Exit codes: 0 no skill at or above --fail-on; 1 one is, or an error; 2 usage error;\n" +
			"3 store busy.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "text, json or sarif", Value: "text"},
			&cli.StringFlag{Name: "fail-on", Usage: "exit 1 when a skill's risk is at or above this level (low, medium, high, critical)", Value: safety.RiskHigh.String()},
		},
		Action: func(c *cli.Context) error {
			names, err := storeArgs(c, 0, -1)
			if err != nil {
				return err
			}
			format := c.String("format")
			switch format {
			case "text", "json", "sarif":
			default:
				return app.UsageErrorf("--format %q: give text, json or sarif", format)
			}
			failOn, err := safety.ParseRiskLevel(c.String("fail-on"))
			if err != nil {
				return app.UsageErrorf("--fail-on: %v", err)
			}
			if failOn == safety.RiskNone {
				return app.UsageErrorf("--fail-on none would fail every audit: give low or above")
			}
			return app.Audit(c.Context, app.AuditOptions{Global: global(c), Names: names, Format: format, FailOn: failOn})
		},
	}
}
