// Package safety is the check every tree passes before it becomes a version
// of a skill, whether it comes from a local folder, an upstream plugin, a
// remote store or an edit captured from a target.
//
// [Check] rejects outright what a store never holds (a [RejectedError]:
// symlinks leading out of the folder, paths escaping it, special files,
// too many or too large files, see [skillfs.Limits]) and otherwise grades the rest: each [Finding] (a
// script added or changed, a download piped into a shell, a prompt
// injection, a hidden base64 payload, invisible characters in SKILL.md) has
// a [RiskLevel], and the highest one is the tree's risk. Callers refuse a
// version whose risk is above what the user allows with a
// [RiskRefusedError]. The package reads only the files it is given.
package safety

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// RiskLevel grades what the safety check flags in a tree.
type RiskLevel int

// Risk levels, lowest first.
const (
	RiskNone RiskLevel = iota
	RiskLow
	RiskMedium
	RiskHigh
	RiskCritical
)

var riskNames = []string{"none", "low", "medium", "high", "critical"}

func (l RiskLevel) String() string {
	if l < 0 || int(l) >= len(riskNames) {
		return fmt.Sprintf("risk(%d)", int(l))
	}
	return riskNames[l]
}

// MarshalText writes the level's name.
func (l RiskLevel) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level's name.
func (l *RiskLevel) UnmarshalText(b []byte) error {
	v, err := ParseRiskLevel(string(b))
	*l = v
	return err
}

// ParseRiskLevel parses "none", "low", "medium", "high" or "critical".
func ParseRiskLevel(s string) (RiskLevel, error) {
	for i, n := range riskNames {
		if strings.EqualFold(s, n) {
			return RiskLevel(i), nil
		}
	}
	return RiskNone, fmt.Errorf("unknown risk level %q (use none, low, medium, high or critical)", s)
}

// DefaultAllowedRisk is the highest level accepted without --allow-risk:
// only critical findings refuse a version by default.
const DefaultAllowedRisk = RiskHigh

// Finding is something the safety check flags, located in a file.
type Finding struct {
	Level   RiskLevel `json:"level"`
	Path    string    `json:"path"`
	Line    int       `json:"line,omitempty"`
	Message string    `json:"message"`
	// Rule is the ID of the check that found it (see [Rules]); empty in
	// findings read back from a commit message written before rules had IDs.
	Rule string `json:"rule,omitempty"`
	// Known marks a finding already in the version this tree replaces
	// (the file is unchanged): it is shown, but only what a version adds
	// raises its risk.
	Known bool `json:"known,omitempty"`
}

// The path is quoted as git quotes a path (skillfs.QuotePath): a file name
// holding a newline stays on the finding's line.
func (f Finding) String() string {
	loc := skillfs.QuotePath(f.Path)
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, f.Line)
	}
	msg := f.Message
	if f.Known {
		msg += " (already in the accepted version)"
	}
	return fmt.Sprintf("%s: %s: %s", f.Level, loc, msg)
}

// Problem is a reason the safety check rejects a tree outright.
type Problem struct {
	Path   string
	Reason string
	// Shown, when set, is how Path is printed (already quoted): two
	// spellings that look alike show their bytes.
	Shown string
}

// RejectedError is returned when a tree holds something a store never
// accepts: a symlink that leaves the folder, is absolute or loops (see
// skillfs.CheckLinks; a link inside the folder is kept as git keeps it), a
// path escaping the folder, a special file, two names that are one on
// macOS and Windows, or too many or too large files.
// Nothing is written.
type RejectedError struct {
	Skill    string
	Problems []Problem
}

func (e *RejectedError) Error() string { return problem.Format(e.Summary(), e.Details()) }

// Summary names the rejected skill.
func (e *RejectedError) Summary() string { return e.Skill + " rejected by the safety check" }

// Details are the problems, "path: reason" each, the path quoted as git
// quotes a path (skillfs.QuotePath).
func (e *RejectedError) Details() []string {
	out := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		shown := p.Shown
		if shown == "" {
			shown = skillfs.QuotePath(p.Path)
		}
		out[i] = shown + ": " + p.Reason
	}
	return out
}

// boundProblem is a path past a bound of a tree's shape (see
// skillfs.MaxDepth), shown cut short: the problem stays one short line.
func boundProblem(b *skillfs.BoundError) Problem {
	return Problem{Path: b.Path, Shown: skillfs.ShortPath(b.Path), Reason: b.Reason()}
}

// RiskRefusedError is returned when findings exceed the allowed level.
type RiskRefusedError struct {
	Skill    string
	Risk     RiskLevel
	Allowed  RiskLevel
	Findings []Finding
}

func (e *RiskRefusedError) Error() string { return problem.Format(e.Summary(), e.Details()) }

// Summary names the skill and the two risk levels.
func (e *RiskRefusedError) Summary() string {
	return fmt.Sprintf("%s refused: risk %s is above the allowed %s", e.Skill, e.Risk, e.Allowed)
}

// Details are the findings above the allowed level.
func (e *RiskRefusedError) Details() []string {
	var out []string
	for _, f := range e.Findings {
		if f.Level > e.Allowed && !f.Known {
			out = append(out, f.String())
		}
	}
	return out
}

// Report is the outcome of a safety check that did not reject.
type Report struct {
	Risk     RiskLevel
	Findings []Finding
}

// collision is the first two paths of files that a checkout on macOS or
// Windows would take for one (skillfs.CheckCollisions), nil for none.
func collision(files []skillfs.File) *skillfs.CollisionError {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	var c *skillfs.CollisionError
	if errors.As(skillfs.CheckCollisions(paths), &c) {
		return c
	}
	return nil
}

// Check runs the safety check on a tree about to become a version of
// skill. files need Data (except that oversized files may have only Size);
// previous is the tree of the version it replaces (nil for a new skill), so
// scripts are flagged only when added or changed. It returns a
// *RejectedError for what is never accepted, and otherwise the findings and
// the highest risk level among them.
func Check(skill string, files []skillfs.File, previous []skillfs.File, limits skillfs.Limits) (Report, error) {
	return check(skill, files, previous, limits, false)
}

// CheckUpdate is Check for a tree that would replace accepted, the
// version in force on this machine (the published head an update or a
// candidate is made against): the findings of files it leaves unchanged
// are marked Known and do not raise the risk, so a finding accepted once
// does not hold every later update. Check, not this, judges a chain of
// versions that came from elsewhere (pull), whose predecessors nobody
// here accepted.
func CheckUpdate(skill string, files []skillfs.File, accepted []skillfs.File, limits skillfs.Limits) (Report, error) {
	return check(skill, files, accepted, limits, true)
}

func check(skill string, files []skillfs.File, previous []skillfs.File, limits skillfs.Limits, markKnown bool) (Report, error) {
	var problems []Problem
	if len(files) > limits.MaxFiles {
		problems = append(problems, Problem{Path: ".", Reason: fmt.Sprintf("%d files is more than the cap of %d", len(files), limits.MaxFiles)})
	}
	for _, f := range files {
		if err := skillfs.CheckPath(f.Path); err != nil {
			var bound *skillfs.BoundError
			if errors.As(err, &bound) {
				problems = append(problems, boundProblem(bound))
				continue
			}
			problems = append(problems, Problem{Path: f.Path, Reason: "path escapes the skill folder or is not a plain relative path"})
			continue
		}
		switch f.Mode {
		case skillfs.Regular, skillfs.Executable:
		case skillfs.Symlink:
			continue // checked with the others below
		default:
			problems = append(problems, Problem{Path: f.Path, Reason: "device, socket, fifo or submodule; only regular files are stored"})
			continue
		}
		if size := max(f.Size, int64(len(f.Data))); size > limits.MaxFileSize {
			problems = append(problems, Problem{Path: f.Path, Reason: fmt.Sprintf("%d bytes is over the size cap of %d bytes", size, limits.MaxFileSize)})
		}
	}
	for _, e := range skillfs.CheckLinks(files) {
		problems = append(problems, Problem{Path: e.Path, Reason: fmt.Sprintf("symlink to %q %s", e.Target, e.Reason)})
	}
	if c := collision(files); c != nil {
		a, b := skillfs.QuotePath(c.A), skillfs.QuotePath(c.B)
		if !isASCII([]byte(c.A + c.B)) {
			a, b = skillfs.QuoteBytes(c.A), skillfs.QuoteBytes(c.B) // two spellings may look alike
		}
		problems = append(problems, Problem{Path: c.A, Shown: a, Reason: fmt.Sprintf("collides with %s: one name on macOS and Windows (letter case or Unicode normalization differs); rename one", b)})
	}
	if len(problems) > 0 {
		sort.Slice(problems, func(i, j int) bool { return problems[i].Path < problems[j].Path })
		return Report{}, &RejectedError{Skill: skill, Problems: problems}
	}

	prev := skillfs.Index(previous)
	var findings []Finding
	for _, f := range files {
		old, existed := prev[f.Path]
		changed := !existed || old.ID != f.ID || old.ID.IsZero() || old.Mode != f.Mode
		if changed && isScript(f) {
			verb := "added"
			if existed {
				verb = "changed"
			}
			level, what := RiskLow, "script"
			if f.Executable() {
				level, what = RiskMedium, "executable script"
			}
			findings = append(findings, Finding{Level: level, Path: f.Path, Message: what + " " + verb, Rule: ruleScript.ID})
		}
		if hasControlName(f.Path) {
			findings = append(findings, Finding{Level: RiskHigh, Path: f.Path, Message: ruleControlName.Reason, Rule: ruleControlName.ID, Known: markKnown && !changed})
		}
		if bytes.IndexByte(f.Data, 0) >= 0 {
			continue // binary: the text checks below do not apply
		}
		text := scanText(f.Path, f.Data, f.Path == skillmd.FileName)
		if f.Path == skillmd.FileName && !hasKind(text, "terminal control") {
			text = append(text, frontmatterControls(f.Data)...)
		}
		if markKnown && !changed {
			for i := range text {
				text[i].Known = true
			}
		}
		findings = append(findings, text...)
	}
	return NewReport(findings), nil
}

// NewReport gathers findings into a report whose risk is the highest
// level among them, findings already in the accepted version aside.
func NewReport(findings []Finding) Report {
	report := Report{Findings: findings}
	for _, f := range findings {
		if !f.Known {
			report.Risk = max(report.Risk, f.Level)
		}
	}
	return report
}
