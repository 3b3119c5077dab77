package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
)

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

// NewSkillOptions are new's: the skill's name, its folder (default
// ./NAME) and its description (default: a placeholder to edit).
type NewSkillOptions struct {
	Global
	Name, Dir, Description string
}

// NewSkill writes a new skill folder from a short template that passes
// 'skillstore validate --strict'.
func NewSkill(ctx context.Context, opts NewSkillOptions) error {
	name, dir := opts.Name, opts.Dir
	if dir == "" {
		dir = name
	}
	desc := opts.Description
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
		return WithHint(UsageErrorf("new %s: %s", name, strings.Join(problems, "; ")), "nothing was written")
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return WithHint(fmt.Errorf("new %s: %s is not empty", name, dir), "nothing was written; give an empty or new folder")
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("new %s: %w", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("new %s: %w", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), data, 0o644); err != nil {
		return fmt.Errorf("new %s: %w", name, err)
	}
	cliout.Printf(opts.Stdout, "created %s: edit it, then record it with 'skillstore add %s'\n", filepath.Join(dir, "SKILL.md"), dir)
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
