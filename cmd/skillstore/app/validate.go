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
func Validate(ctx context.Context, opts ValidateOptions) error {
	mode := discover.Lenient
	if opts.Strict {
		mode = discover.Strict
	}
	dopts := discover.Options{Mode: mode, Logger: opts.Log}
	report := validateReport{Mode: mode.String(), Skills: []validatedSkill{}}
	var all []discover.Diagnostic
	for _, p := range opts.Paths {
		res, err := discover.LoadPath(ctx, p, dopts)
		if err != nil {
			return WithHint(fmt.Errorf("validate: %w", err), "give a skill folder, a SKILL.md or a folder of skills")
		}
		for _, s := range res.Skills {
			report.Skills = append(report.Skills, validatedSkill{
				Name: s.Name, Path: DisplayPath(s.Path()), Valid: s.Loads(),
				Diagnostics: RelativeDiagnostics(s.Diagnostics),
			})
		}
		all = append(all, res.AllDiagnostics()...)
	}
	report.Diagnostics = RelativeDiagnostics(all)
	for _, d := range all {
		if d.Severity == discover.SeverityError {
			report.Errors++
		} else {
			report.Warnings++
		}
	}
	if opts.JSON {
		if err := cliout.JSON(opts.Stdout, report); err != nil {
			return err
		}
	} else {
		for _, d := range report.Diagnostics {
			cliout.Reportf(opts.Stdout, "    ", "%s", d)
		}
		cliout.Println(opts.Stdout, validateSummary(len(report.Skills), report.Errors, report.Warnings))
	}
	if report.Errors > 0 {
		return ErrReported
	}
	return nil
}

func validateSummary(skills, errors, warnings int) string {
	s := fmt.Sprintf("checked %s: ", Plural(skills, "skill"))
	if errors == 0 && warnings == 0 {
		return s + "no problems"
	}
	return s + Plural(errors, "error") + ", " + Plural(warnings, "warning")
}
