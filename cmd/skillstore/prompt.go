package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/discover"
)

func promptCommand() *cli.Command {
	return &cli.Command{
		Name:      "prompt",
		Category:  "skills",
		Usage:     "print the <available_skills> XML block for an agent's system prompt",
		ArgsUsage: "[PATH...]",
		Description: "Prints the block the Agent Skills reference tooling (skills-ref to-prompt)\n" +
			"generates: for each skill its name, description and the absolute path of its\n" +
			"SKILL.md, escaped for XML. Each PATH is a skill folder, a SKILL.md or a\n" +
			"folder of skills; a skill there that does not load is an error. Without PATH,\n" +
			"the active discovered skills are listed, one per name (see 'skillstore discover').\n\n" +
			"Exit codes: 0 printed, 1 a PATH is missing or holds a broken skill, 2 usage error.",
		Flags:  []cli.Flag{skillDirFlag()},
		Action: runPrompt,
	}
}

func runPrompt(c *cli.Context) error {
	e := getEnv(c)
	if c.NArg() == 0 {
		res, err := discoverWith(c)
		if err != nil {
			return err
		}
		return discover.WritePrompt(e.stdout, res.Preferred())
	}
	if len(c.StringSlice("skill-dir")) > 0 {
		return withHint(usageErrorf("--skill-dir and PATH arguments cannot be combined"), "give the skills as PATH arguments, or use --skill-dir alone")
	}
	var skills []*discover.Skill
	for _, p := range c.Args().Slice() {
		res, err := discover.LoadPath(c.Context, p, discover.Options{Logger: e.log})
		if err != nil {
			return withHint(fmt.Errorf("prompt: %w", err), "give a skill folder, a SKILL.md or a folder of skills")
		}
		if len(res.Skills) == 0 {
			return withHint(fmt.Errorf("prompt: no skills found in %s", p), "a skill is a folder holding a SKILL.md")
		}
		for _, s := range res.Skills {
			if !s.Loads() {
				err := fmt.Errorf("prompt: skill %s does not load: %s", displayPath(s.Dir), firstError(s.Diagnostics))
				return withHint(err, "run 'skillstore validate "+displayPath(s.Dir)+"' for every problem")
			}
			skills = append(skills, s)
		}
	}
	return discover.WritePrompt(e.stdout, skills)
}

// firstError returns the first error diagnostic, formatted.
func firstError(diags []discover.Diagnostic) string {
	for _, d := range relativeDiagnostics(diags) {
		if d.Severity == discover.SeverityError {
			return d.String()
		}
	}
	return "unknown error"
}
