package doctor

import (
	"fmt"
	"io"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
)

// doctor's summary comes first and fits a screen whatever the number of
// skills: counts, what the agents will not load and why (one line per
// kind), broken skills, warnings by kind, each target's listing against its
// agent's budget in the agent's own unit, and a count of the references
// flat targets cannot resolve. Each list stops at summaryLines lines; the
// details (every root, skill, finding and reference) are behind --verbose,
// and --json carries them all.

// summaryLines bounds each list of the summary.
const summaryLines = 5

// writeDoctorSummary prints the summary.
func writeDoctorSummary(w io.Writer, res *discover.Result, diags []discover.Diagnostic, rep doctorReport) {
	sum := rep.Summary
	roots := 0
	for _, r := range res.Roots {
		if r.Exists {
			roots++
		}
	}
	cliout.Printf(w, "%s in %s: %d active, %d shadowed, %d broken; %s, %s\n",
		app.Plural(sum.Skills, "skill"), app.Plural(roots, "root"), sum.Active, sum.Shadowed, sum.Broken,
		app.Plural(sum.Errors, "error"), app.Plural(sum.Warnings, "warning"))
	summarySection(w, "Agents will not load:", notLoadedNotes(res.Skills))
	summarySection(w, "Errors:", brokenNotes(diags))
	summarySection(w, "Warnings:", warningNotes(diags))
	summarySection(w, "Listing budget per target (name and description of every skill, in the agent's unit):", budgetLines(rep.Context))
	summarySection(w, "Also:", otherLines(res, rep))
}

// summarySection prints a heading and at most summaryLines lines (each
// wrapped at the report width, --width), then how many more --verbose shows;
// nothing when there are none.
func summarySection(w io.Writer, heading string, lines []string) {
	if len(lines) == 0 {
		return
	}
	cliout.Println(w, heading)
	for i, l := range lines {
		if i == summaryLines && len(lines) > summaryLines+1 {
			cliout.Printf(w, "  and %d more (--verbose lists them)\n", len(lines)-i)
			break
		}
		cliout.Println(w, cliout.Wrap("  "+l, cliout.ReportWidthOf(w), "    "))
	}
}

// notLoadedNotes is one line per reason a skill is not loaded, with the
// agents it stops and the skills concerned.
func notLoadedNotes(skills []*discover.Skill) []string {
	var notes []app.Note
	for _, s := range skills {
		if s.ShadowedBy != nil {
			continue
		}
		var reasons []string
		agents := map[string][]string{}
		for _, is := range discover.AgentIssues(s) {
			if is.Blocking {
				if agents[is.Message] == nil {
					reasons = append(reasons, is.Message)
				}
				agents[is.Message] = append(agents[is.Message], is.Agent)
			}
		}
		for _, r := range reasons {
			notes = append(notes, app.Note{Where: s.QualifiedName(), Text: strings.Join(agents[r], " and ") + ": " + r})
		}
	}
	return groupLines(notes, "skill")
}

// brokenNotes is the error diagnostics, one line per kind.
func brokenNotes(diags []discover.Diagnostic) []string {
	return diagnosticLines(diags, discover.SeverityError)
}

// warningNotes is the warning diagnostics, one line per kind.
func warningNotes(diags []discover.Diagnostic) []string {
	return diagnosticLines(diags, discover.SeverityWarning)
}

func diagnosticLines(diags []discover.Diagnostic, sev discover.Severity) []string {
	var notes []app.Note
	for _, d := range app.RelativeDiagnostics(diags) {
		if d.Severity == sev {
			notes = append(notes, app.Note{Where: d.File, Text: d.Message})
		}
	}
	return groupLines(notes, "file")
}

// groupLines renders notes one line per kind: "TEXT (WHERE)" for one,
// "N THINGS: TEXT (WHERE, ... and K more)" for several.
func groupLines(notes []app.Note, thing string) []string {
	var out []string
	for _, g := range app.GroupNotes(notes) {
		if g.Count == 1 {
			out = append(out, fmt.Sprintf("%s (%s)", g.Text, g.Where[0]))
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s (%s)", app.Plural(g.Count, thing), g.Text, app.NameSummary(g.Where, 3)))
	}
	return out
}

// budgetLines says, per target, what the agent lists against its budget,
// both in the agent's unit (characters for Claude Code and Codex), and
// which skills the agent shortens first when it is over.
func budgetLines(costs []app.ContextCost) []string {
	var out []string
	for _, c := range costs {
		line := fmt.Sprintf("%s (%s): %s, %d characters", c.Target, app.DisplayPath(c.Dir), app.Plural(c.Skills, "skill"), c.Chars)
		if b := c.Budget; b != nil {
			line = fmt.Sprintf("%s (%s): %s, %d of %s's %d characters (%d%%)", c.Target, app.DisplayPath(c.Dir),
				app.Plural(c.Skills, "skill"), c.Chars, b.Agent, b.Chars, c.Chars*100/max(b.Chars, 1))
			if c.OverBy > 0 {
				var names []string
				for _, s := range c.Shortened {
					names = append(names, s.Skill)
				}
				line += fmt.Sprintf(": over by %d; shortened first: %s", c.OverBy, app.NameSummary(names, 3))
			}
		}
		out = append(out, line)
	}
	return out
}

// otherLines counts what the details list in full: shadowed skills,
// identical bodies, cross-references flat targets cannot resolve.
func otherLines(res *discover.Result, rep doctorReport) []string {
	var out []string
	if n := rep.Summary.Shadowed; n > 0 {
		var names []string
		for _, s := range res.Skills {
			if s.ShadowedBy != nil {
				names = append(names, s.QualifiedName())
			}
		}
		out = append(out, fmt.Sprintf("%s shadowed by a skill of the same name in a higher root (%s)", app.Plural(n, "skill"), app.NameSummary(names, 3)))
	}
	if n := len(res.Duplicates); n > 0 {
		out = append(out, fmt.Sprintf("%s of skills with identical bodies in different folders", app.Plural(n, "group")))
	}
	if refs := rep.CrossReferences; len(refs) > 0 {
		perTarget := map[string]int{}
		var order []string
		for _, r := range refs {
			if perTarget[r.Target] == 0 {
				order = append(order, r.Target)
			}
			perTarget[r.Target]++
		}
		var parts []string
		for _, t := range order {
			parts = append(parts, fmt.Sprintf("%s %d", t, perTarget[t]))
		}
		out = append(out, fmt.Sprintf("%s PLUGIN:NAME in exported skills that flat targets cannot resolve (%s)",
			app.Plural(len(refs), "reference"), strings.Join(parts, ", ")))
	}
	return out
}
