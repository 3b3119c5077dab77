package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
)

func newCommand() *cli.Command {
	return &cli.Command{
		Name:      "new",
		Category:  "skills",
		Usage:     "create a new skill folder from a short template",
		ArgsUsage: "NAME [DIR]",
		Description: "Writes DIR/SKILL.md (DIR defaults to ./NAME) with the name, a description and a\n" +
			"short body to edit. The result passes 'skillstore validate --strict': NAME must\n" +
			"be 1-64 lowercase letters, digits and single hyphens, without the reserved words\n" +
			"'anthropic' and 'claude'. An existing non-empty DIR is refused. Record the skill\n" +
			"with 'skillstore add DIR' once it says what it should.\n\n" +
			"Exit codes: 0 written, 1 DIR not empty or error, 2 usage error (bad NAME or\n" +
			"description).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "description", Usage: "what the skill does and when to use it (default: a placeholder to edit)"},
		},
		Action: runNew,
	}
}

// newSkillBody is the template's body: the sections most skills have,
// each saying what belongs there.
const newSkillBody = `
# %s

## When to use

Describe the situations in which an agent should use this skill.

## Instructions

1. Write the steps the agent should follow.
2. Keep this file short; put long reference material in references/ files
   and scripts in scripts/, and say here when to read or run them.
`

func runNew(c *cli.Context) error {
	args, err := storeArgs(c, 1, 2)
	if err != nil {
		return err
	}
	name := args[0]
	dir := name
	if len(args) == 2 {
		dir = args[1]
	}
	desc := c.String("description")
	if desc == "" {
		desc = "Describe what " + name + " does and when an agent should use it."
	}
	front, err := yaml.Marshal(struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}{name, desc})
	if err != nil {
		return err
	}
	data := []byte("---\n" + string(front) + "---\n" + fmt.Sprintf(newSkillBody, titleOf(name)))
	// The same validation 'validate --strict' applies, before anything is written.
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	_, diags := discover.ValidateFile(filepath.Join(dir, "SKILL.md"), filepath.Base(abs), data, discover.Strict)
	var problems []string
	for _, d := range diags {
		if d.Severity == discover.SeverityError {
			problems = append(problems, d.Message)
		}
	}
	if len(problems) > 0 {
		return withHint(usageErrorf("new %s: %s", name, strings.Join(problems, "; ")), "nothing was written")
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return withHint(fmt.Errorf("new %s: %s is not empty", name, dir), "nothing was written; give an empty or new folder")
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("new %s: %w", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("new %s: %w", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), data, 0o644); err != nil {
		return fmt.Errorf("new %s: %w", name, err)
	}
	cliout.Printf(getEnv(c).stdout, "created %s: edit it, then record it with 'skillstore add %s'\n", filepath.Join(dir, "SKILL.md"), dir)
	return nil
}

// titleOf turns a skill name into a heading: "pdf-tools" -> "Pdf tools".
func titleOf(name string) string {
	t := strings.ReplaceAll(name, "-", " ")
	if t == "" {
		return t
	}
	return strings.ToUpper(t[:1]) + t[1:]
}
