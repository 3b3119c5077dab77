package app

import (
	"context"
	"fmt"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
)

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

// ValidateOptions are validate's: the paths to check, and Strict for
// the spec's rules instead of what agents load.
type ValidateOptions struct {
	Global
	Output
	Paths  []string
	Strict bool
}

// Validate checks SKILL.md files against the Agent Skills spec and prints
// every finding; an error makes it end with ErrReported.
func Validate(ctx context.Context, vopts ValidateOptions) error {
	mode := discover.Lenient
	if vopts.Strict {
		mode = discover.Strict
	}
	opts := discover.Options{Mode: mode, Logger: vopts.Log}
	report := validateReport{Mode: mode.String(), Skills: []validatedSkill{}}
	var all []discover.Diagnostic
	for _, p := range vopts.Paths {
		res, err := discover.LoadPath(ctx, p, opts)
		if err != nil {
			return WithHint(fmt.Errorf("validate: %w", err), "give a skill folder, a SKILL.md or a folder of skills")
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
	if vopts.JSON {
		if err := cliout.JSON(vopts.Stdout, report); err != nil {
			return err
		}
	} else {
		for _, d := range report.Diagnostics {
			cliout.Println(vopts.Stdout, d)
		}
		cliout.Println(vopts.Stdout, validateSummary(len(report.Skills), report.Errors, report.Warnings))
	}
	if report.Errors > 0 {
		return ErrReported
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
		res, err := discoverWith(ctx, opts.Global, opts.SkillDirs)
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
				err := fmt.Errorf("prompt: skill %s does not load: %s", displayPath(s.Dir), firstError(s.Diagnostics))
				return WithHint(err, "run 'skillstore validate "+displayPath(s.Dir)+"' for every problem")
			}
			skills = append(skills, s)
		}
	}
	return discover.WritePrompt(opts.Stdout, skills)
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
