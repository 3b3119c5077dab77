package store

import (
	"errors"
	"testing"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/problem"
)

// TestErrorsListTheirProblems checks the store's errors that report several
// problems: each is a problem.List whose message is one line, and whose
// multi-line form (what the CLI prints) is the summary and a colon, then
// one problem per line.
func TestErrorsListTheirProblems(t *testing.T) {
	for _, tc := range []struct {
		err        error
		one, lines string
	}{
		{
			&InvalidSkillError{Dir: "skills/deploy", Diagnostics: []discover.Diagnostic{
				{Severity: discover.SeverityError, File: "skills/deploy/SKILL.md", Line: 2, Message: `name "Deploy" must be lowercase`},
				{Severity: discover.SeverityWarning, File: "skills/deploy/SKILL.md", Message: "a warning is not listed"},
				{Severity: discover.SeverityError, File: "skills/deploy/SKILL.md", Message: "no description"},
			}},
			`skills/deploy is not a valid skill: skills/deploy/SKILL.md:2: error: name "Deploy" must be lowercase; skills/deploy/SKILL.md: error: no description`,
			"skills/deploy is not a valid skill:\n  skills/deploy/SKILL.md:2: error: name \"Deploy\" must be lowercase\n  skills/deploy/SKILL.md: error: no description",
		},
	} {
		var list problem.List
		if !errors.As(tc.err, &list) {
			t.Errorf("%T is not a problem.List", tc.err)
			continue
		}
		if got := tc.err.Error(); got != tc.one {
			t.Errorf("%T.Error()\n got %q\nwant %q", tc.err, got, tc.one)
		}
		if got := problem.Expand(tc.err); got != tc.lines {
			t.Errorf("%T expanded\n got %q\nwant %q", tc.err, got, tc.lines)
		}
	}
}
