package app

import (
	"context"
	"fmt"

	"github.com/skillstore/skillstore/discover"
)

// PromptOptions are prompt's: the skills of Paths, or without them the
// active discovered skills (SkillDirs searched first).
type PromptOptions struct {
	DiscoverOptions
	Paths []string
}

// Prompt prints the <available_skills> XML block for an agent's system
// prompt.
func Prompt(ctx context.Context, opts PromptOptions) error {
	if len(opts.Paths) == 0 {
		res, err := DiscoverWith(ctx, opts.Global, opts.SkillDirs)
		if err != nil {
			return err
		}
		return discover.WritePrompt(opts.Stdout, res.Preferred())
	}
	var skills []*discover.Skill
	for _, p := range opts.Paths {
		res, err := discover.LoadPath(ctx, p, discover.Options{Logger: opts.Log})
		if err != nil {
			return WithHint(fmt.Errorf("prompt: %w", err), "give a skill folder, a SKILL.md or a folder of skills")
		}
		if len(res.Skills) == 0 {
			return WithHint(fmt.Errorf("prompt: no skills found in %s", p), "a skill is a folder holding a SKILL.md")
		}
		for _, s := range res.Skills {
			if !s.Loads() {
				err := fmt.Errorf("prompt: skill %s does not load: %s", DisplayPath(s.Dir), firstError(s.Diagnostics))
				return WithHint(err, "run 'skillstore validate "+DisplayPath(s.Dir)+"' for every problem")
			}
			skills = append(skills, s)
		}
	}
	return discover.WritePrompt(opts.Stdout, skills)
}

// firstError returns the first error diagnostic, formatted.
func firstError(diags []discover.Diagnostic) string {
	for _, d := range RelativeDiagnostics(diags) {
		if d.Severity == discover.SeverityError {
			return d.String()
		}
	}
	return "unknown error"
}
