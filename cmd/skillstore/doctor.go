package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:     "doctor",
		Category: "inspection",
		Usage:    "explain which skills agents load, and why some do not",
		Description: "Runs discovery and reports the roots searched, every skill with its layer and\n" +
			"origin, shadowing, skills with identical bodies, skills that Claude Code or\n" +
			"Codex would not load (or would load differently) and why, and every\n" +
			"diagnostic, then a summary line. With a store that has targets, it also says\n" +
			"what each target's skills cost the agent's context: the characters and\n" +
			"approximate tokens of the always-loaded list (name and description of each\n" +
			"skill), against the agent's documented budget (Claude Code: about 1% of the\n" +
			"context window, 8,000 characters when unknown, 1,536 per skill; Codex: about\n" +
			"2%, 8,000 when unknown), naming the skills whose descriptions get shortened.\n" +
			"It also lists references of the form PLUGIN:NAME (a known plugin of the store)\n" +
			"in the exported skills' Markdown that a flat target cannot resolve, with the\n" +
			"skill, file, line and target (a warning; see README, Targets).\n\n" +
			layersHelp + "\n\n" +
			"Exit codes: 0 every skill loads, 1 at least one skill is broken (an error\n" +
			"diagnostic), 2 usage error.",
		Flags:  []cli.Flag{skillDirFlag(), newJSONFlag()},
		Action: runDoctor,
	}
}

type doctorReport struct {
	Roots       []discover.Root       `json:"roots"`
	Skills      []skillView           `json:"skills"`
	Duplicates  [][]string            `json:"duplicates"`
	Diagnostics []discover.Diagnostic `json:"diagnostics"`
	Summary     doctorSummary         `json:"summary"`
	// Context is what each target's skills cost the agent's context.
	Context []contextCost `json:"context"`
	// CrossReferences are PLUGIN:NAME references that flat targets
	// cannot resolve.
	CrossReferences []target.CrossRef `json:"cross_references"`
}

type doctorSummary struct {
	Skills   int `json:"skills"`
	Active   int `json:"active"`
	Shadowed int `json:"shadowed"`
	Broken   int `json:"broken"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

func runDoctor(c *cli.Context) error {
	if c.NArg() > 0 {
		return withHint(usageErrorf("doctor takes no arguments"), "add roots with --skill-dir DIR")
	}
	e := getEnv(c)
	res, err := discoverWith(c)
	if err != nil {
		return err
	}
	diags := res.AllDiagnostics()
	rep := doctorReport{Roots: res.Roots, Skills: []skillView{}, Duplicates: [][]string{}, Diagnostics: diags}
	if rep.Diagnostics == nil {
		rep.Diagnostics = []discover.Diagnostic{}
	}
	for _, s := range res.Skills {
		rep.Skills = append(rep.Skills, newSkillView(s, true))
		rep.Summary.Skills++
		switch status(s) {
		case "active":
			rep.Summary.Active++
		case "shadowed":
			rep.Summary.Shadowed++
		default:
			rep.Summary.Broken++
		}
	}
	for _, g := range res.Duplicates {
		var dirs []string
		for _, s := range g {
			dirs = append(dirs, s.Dir)
		}
		rep.Duplicates = append(rep.Duplicates, dirs)
	}
	for _, d := range diags {
		if d.Severity == discover.SeverityError {
			rep.Summary.Errors++
		} else {
			rep.Summary.Warnings++
		}
	}
	rep.Context = targetContextCosts(c)
	rep.CrossReferences = targetCrossRefs(c)
	if c.Bool("json") {
		if err := cliout.JSON(e.stdout, rep); err != nil {
			return err
		}
	} else {
		writeDoctor(e.stdout, res, diags, rep.Summary)
		writeContextCosts(e.stdout, rep.Context)
		writeCrossRefs(e.stdout, rep.CrossReferences)
	}
	if rep.Summary.Broken > 0 || rep.Summary.Errors > 0 {
		return silentExit(exitError)
	}
	return nil
}

func writeDoctor(w io.Writer, res *discover.Result, diags []discover.Diagnostic, sum doctorSummary) {
	cliout.Println(w, "Roots (highest priority first):")
	counts := map[string]int{}
	for _, s := range res.Skills {
		counts[s.Root]++
	}
	for _, r := range res.Roots {
		state := plural(counts[r.Path], "skill")
		if !r.Exists {
			state = "absent"
		}
		cliout.Printf(w, "  %-8s %s (%s)\n", r.Layer, displayPath(r.Path), state)
	}

	if len(res.Skills) > 0 {
		cliout.Printf(w, "\nSkills:\n")
		var b strings.Builder
		writeSkillTable(&b, res.Skills)
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			cliout.Println(w, "  "+line)
		}
	}

	var shadowed []string
	for _, s := range res.Skills {
		if s.ShadowedBy != nil {
			shadowed = append(shadowed, fmt.Sprintf("  %s: %s %s is shadowed by %s %s",
				s.QualifiedName(), s.Layer, displayPath(s.Dir), s.ShadowedBy.Layer, displayPath(s.ShadowedBy.Dir)))
		}
	}
	section(w, "Shadowed skills (agents load the first):", shadowed)

	var dups []string
	for _, g := range res.Duplicates {
		var names []string
		for _, s := range g {
			names = append(names, s.QualifiedName()+" ("+displayPath(s.Dir)+")")
		}
		dups = append(dups, "  "+strings.Join(names, ", "))
	}
	section(w, "Duplicates (identical bodies):", dups)

	var compat []string
	for _, s := range res.Skills {
		for _, is := range discover.AgentIssues(s) {
			verdict := "loads it, but"
			if is.Blocking {
				verdict = "does not load it:"
			}
			compat = append(compat, fmt.Sprintf("  %s (%s): %s %s %s", s.QualifiedName(), displayPath(s.Dir), is.Agent, verdict, is.Message))
		}
	}
	section(w, "Agent compatibility:", compat)

	var lines []string
	for _, d := range relativeDiagnostics(diags) {
		lines = append(lines, "  "+d.String())
	}
	section(w, "Diagnostics:", lines)

	cliout.Printf(w, "\n%s: %d active, %d shadowed, %d broken; %s, %s\n",
		plural(sum.Skills, "skill"), sum.Active, sum.Shadowed, sum.Broken, plural(sum.Errors, "error"), plural(sum.Warnings, "warning"))
}

// section prints a heading and its lines, or nothing when there are none.
func section(w io.Writer, heading string, lines []string) {
	if len(lines) == 0 {
		return
	}
	cliout.Printf(w, "\n%s\n", heading)
	for _, l := range lines {
		cliout.Println(w, l)
	}
}

// doctorTargets opens the store and reads its targets, when there is a
// store: doctor works without one (nil, nil then).
func doctorTargets(c *cli.Context) (*store.Store, []target.Target) {
	dir, err := storeDir(c)
	if err != nil || !store.Exists(dir) {
		return nil, nil
	}
	s, err := openStore(c)
	if err != nil {
		return nil, nil
	}
	targets, err := readTargets(c, s, nil)
	if err != nil {
		return nil, nil
	}
	return s, targets
}

// targetContextCosts measures every target of the store, when there is a
// store; doctor works without one.
func targetContextCosts(c *cli.Context) []contextCost {
	out := []contextCost{}
	_, targets := doctorTargets(c)
	for _, t := range targets {
		out = append(out, measureTarget(t))
	}
	return out
}
