package remote

import (
	"errors"
	"testing"

	"github.com/skillstore/skillstore/internal/problem"
)

// TestErrorsListTheirProblems checks the remote errors that report several
// problems: each is a problem.List whose message is one line, and whose
// multi-line form (what the CLI prints) is the summary and a colon, then
// one problem per line.
func TestErrorsListTheirProblems(t *testing.T) {
	for _, tc := range []struct {
		err        error
		one, lines string
	}{
		{
			&UnsafeRemoteError{Remote: "evil", Problems: []string{"refs/heads/skills/evil: leak is a symlink; a store holds regular files only", "refs/heads/skills/x: no SKILL.md at the top of the tree"}},
			"remote evil serves history the safety checks refuse; nothing was written: refs/heads/skills/evil: leak is a symlink; a store holds regular files only; refs/heads/skills/x: no SKILL.md at the top of the tree",
			"remote evil serves history the safety checks refuse; nothing was written:\n  refs/heads/skills/evil: leak is a symlink; a store holds regular files only\n  refs/heads/skills/x: no SKILL.md at the top of the tree",
		},
		{
			&BadRefError{Remote: "evil", Refs: []string{"refs/heads/candidates/Not_A_Skill: invalid name"}},
			"remote evil has refs skillstore never writes, refusing it: refs/heads/candidates/Not_A_Skill: invalid name",
			"remote evil has refs skillstore never writes, refusing it:\n  refs/heads/candidates/Not_A_Skill: invalid name",
		},
		{
			&PushRefusedError{Remote: "origin", Refs: []PushUpdate{{Ref: "refs/heads/skills/deploy", Action: "refused", Reason: "the remote has v3"}, {Ref: "refs/skillstore/state", Action: "refused", Reason: "changed"}}},
			"push to origin refused, nothing was sent: refs/heads/skills/deploy: the remote has v3; refs/skillstore/state: changed",
			"push to origin refused, nothing was sent:\n  refs/heads/skills/deploy: the remote has v3\n  refs/skillstore/state: changed",
		},
		{
			&CloneVerifyError{URL: "https://example.com/s.git", Problems: []string{"refs/heads/skills/a: broken"}},
			"clone https://example.com/s.git: the cloned store does not verify: refs/heads/skills/a: broken",
			"clone https://example.com/s.git: the cloned store does not verify:\n  refs/heads/skills/a: broken",
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
