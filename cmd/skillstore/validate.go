package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Category:  "skills",
		Usage:     "check SKILL.md files against the Agent Skills spec",
		ArgsUsage: "PATH...",
		Description: "PATH is a skill folder, a SKILL.md file, or a tree of skill folders.\n" +
			"Every finding is printed as 'file:line: severity: message', then a summary line.\n\n" +
			"Without --strict, skills are judged as agents load them: every frontmatter key\n" +
			"that Claude Code, Codex, GitHub Copilot, Cursor, Gemini CLI or OpenCode documents\n" +
			"is accepted, and a warning is given only where an agent would skip the skill,\n" +
			"cut it or ignore part of it, naming the agent (a missing name or description, a\n" +
			"description over 1,024 characters, a name that differs from its folder, a key\n" +
			"spelled otherwise than documented). --strict applies the spec and Anthropic's\n" +
			"validators: those become errors, as do keys the spec does not define (those an\n" +
			"agent documents are warnings naming it), XML tags in name or description and\n" +
			"the reserved words \"anthropic\" and \"claude\" in names.\n\n" +
			"Exit codes: 0 no errors (warnings allowed), 1 at least one error or a PATH\n" +
			"that cannot be read, 2 usage error.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "strict", Usage: "apply the Agent Skills spec: what it does not allow is an error, though agents load it"},
			newJSONFlag(),
		},
		Action: runValidate,
	}
}

// validatedSkill is one skill in validate's JSON output.
type validatedSkill struct {
	Name        string                `json:"name"`
	Path        string                `json:"path"`
	Valid       bool                  `json:"valid"`
	Diagnostics []discover.Diagnostic `json:"diagnostics"`
}

type validateReport struct {
	Mode        string                `json:"mode"`
	Skills      []validatedSkill      `json:"skills"`
	Diagnostics []discover.Diagnostic `json:"diagnostics"`
	Errors      int                   `json:"errors"`
	Warnings    int                   `json:"warnings"`
}

func runValidate(c *cli.Context) error {
	if c.NArg() == 0 {
		return withHint(usageErrorf("validate needs at least one PATH"), "give a skill folder, a SKILL.md or a folder of skills, e.g. 'skillstore validate .'")
	}
	e := getEnv(c)
	mode := discover.Lenient
	if c.Bool("strict") {
		mode = discover.Strict
	}
	opts := discover.Options{Mode: mode, Logger: e.log}
	report := validateReport{Mode: mode.String(), Skills: []validatedSkill{}}
	var all []discover.Diagnostic
	for _, p := range c.Args().Slice() {
		res, err := discover.LoadPath(c.Context, p, opts)
		if err != nil {
			return withHint(fmt.Errorf("validate: %w", err), "give a skill folder, a SKILL.md or a folder of skills")
		}
		for _, s := range res.Skills {
			report.Skills = append(report.Skills, validatedSkill{
				Name: s.Name, Path: displayPath(s.Path()), Valid: s.Loads(),
				Diagnostics: relativeDiagnostics(s.Diagnostics),
			})
		}
		all = append(all, res.AllDiagnostics()...)
	}
	report.Diagnostics = relativeDiagnostics(all)
	for _, d := range all {
		if d.Severity == discover.SeverityError {
			report.Errors++
		} else {
			report.Warnings++
		}
	}
	if c.Bool("json") {
		if err := cliout.JSON(e.stdout, report); err != nil {
			return err
		}
	} else {
		for _, d := range report.Diagnostics {
			cliout.Println(e.stdout, d)
		}
		cliout.Println(e.stdout, validateSummary(len(report.Skills), report.Errors, report.Warnings))
	}
	if report.Errors > 0 {
		return silentExit(exitError)
	}
	return nil
}

func validateSummary(skills, errors, warnings int) string {
	s := fmt.Sprintf("checked %s: ", plural(skills, "skill"))
	if errors == 0 && warnings == 0 {
		return s + "no problems"
	}
	return s + plural(errors, "error") + ", " + plural(warnings, "warning")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// relativeDiagnostics rewrites diagnostic paths with displayPath.
func relativeDiagnostics(diags []discover.Diagnostic) []discover.Diagnostic {
	out := make([]discover.Diagnostic, len(diags))
	for i, d := range diags {
		d.File = displayPath(d.File)
		out[i] = d
	}
	return out
}

// displayPath shortens an absolute path for people: relative to the
// working directory when inside it, else with the home directory as "~".
func displayPath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		if rel, err := filepath.Rel(home, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.Join("~", rel)
		}
	}
	return p
}
