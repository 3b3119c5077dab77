package doctor

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

type doctorReport struct {
	Roots       []discover.Root       `json:"roots"`
	Skills      []app.SkillView       `json:"skills"`
	Duplicates  [][]string            `json:"duplicates"`
	Diagnostics []discover.Diagnostic `json:"diagnostics"`
	Summary     doctorSummary         `json:"summary"`
	// Context is what each target's skills cost the agent's context.
	Context []app.ContextCost `json:"context"`
	// CrossReferences are PLUGIN:NAME references that flat targets
	// cannot resolve.
	CrossReferences []CrossRef `json:"cross_references"`
	// DoubleLoads are agents two targets reach with skills both hold.
	DoubleLoads []target.DoubleLoad `json:"double_loads"`
}

type doctorSummary struct {
	Skills   int `json:"skills"`
	Active   int `json:"active"`
	Shadowed int `json:"shadowed"`
	Broken   int `json:"broken"`
	Errors   int `json:"errors"`
	// Warnings counts the warnings of the skills and each target whose
	// skills list is over its agent's budget.
	Warnings int `json:"warnings"`
}

// Run explains which skills agents load and why some do not: a
// summary that fits a screen (doctor_summary.go), then with verbose the
// roots, every skill, shadowing, duplicates, agent compatibility and every
// diagnostic; with a store that has targets, their skills' context cost
// and the cross-references flat targets cannot resolve.
func Run(ctx context.Context, opts app.DiscoverOptions) error {
	res, err := app.DiscoverWith(ctx, opts.Global, opts.SkillDirs)
	if err != nil {
		return err
	}
	diags := res.AllDiagnostics()
	rep := doctorReport{Roots: res.Roots, Skills: []app.SkillView{}, Duplicates: [][]string{}, Diagnostics: diags}
	if rep.Diagnostics == nil {
		rep.Diagnostics = []discover.Diagnostic{}
	}
	for _, s := range res.Skills {
		rep.Skills = append(rep.Skills, app.NewSkillView(s, true))
		rep.Summary.Skills++
		switch app.SkillStatus(s) {
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
	s, targets := doctorTargets(ctx, opts.Global)
	rep.Context = targetContextCosts(targets)
	for _, c := range rep.Context {
		if c.OverBy > 0 {
			rep.Summary.Warnings++ // a listing the agent cuts is a warning too
		}
	}
	rep.CrossReferences = targetCrossRefs(ctx, opts.Global, s, targets)
	rep.DoubleLoads = []target.DoubleLoad{}
	if s != nil {
		rep.DoubleLoads = append(rep.DoubleLoads, app.DoubleLoads(ctx, opts.Global, s, targets)...)
	}
	if opts.JSON {
		if err := cliout.JSON(opts.Stdout, rep); err != nil {
			return err
		}
	} else {
		writeDoctorSummary(opts.Stdout, res, diags, rep)
		if opts.Verbose {
			if len(rep.DoubleLoads) > 0 {
				cliout.Printf(opts.Stdout, "\nTargets an agent reads together:\n")
				app.WriteDoubleLoads(opts.Stdout, rep.DoubleLoads)
			}
			cliout.Println(opts.Stdout)
			writeDoctor(opts.Stdout, res, diags, rep.Summary)
			app.WriteContextCosts(opts.Stdout, rep.Context)
			writeCrossRefs(opts.Stdout, rep.CrossReferences)
		} else {
			if n := doubleLoadedSkills(rep.DoubleLoads); n > 0 {
				cliout.Printf(opts.Stdout, "Loaded twice: %s, by agents that read the folders of several targets\n", app.Plural(n, "skill"))
			}
			cliout.Println(opts.Stdout, "Details: 'skillstore doctor --verbose' (every root, skill, finding and reference), or --json")
		}
	}
	if rep.Summary.Broken > 0 || rep.Summary.Errors > 0 {
		return app.ErrReported
	}
	return nil
}

func writeDoctor(w io.Writer, res *discover.Result, diags []discover.Diagnostic, sum doctorSummary) {
	cliout.Println(w, "Roots (highest priority first):")
	counts := map[string]int{}
	for _, s := range res.Skills {
		counts[s.Root]++
	}
	// Absent roots (most of the agents' folders, on most machines) go on
	// one line at the end: they hold nothing, so their priority is moot.
	var absent []string
	for _, r := range res.Roots {
		if !r.Exists {
			if n := len(absent); n > 0 && strings.HasPrefix(absent[n-1], r.Layer.String()+" ") {
				absent[n-1] += ", " + app.DisplayPath(r.Path)
			} else {
				absent = append(absent, r.Layer.String()+" "+app.DisplayPath(r.Path))
			}
			continue
		}
		cliout.Printf(w, "  %-8s %s (%s)\n", r.Layer, app.DisplayPath(r.Path), app.Plural(counts[r.Path], "skill"))
	}
	if len(absent) > 0 {
		cliout.Reportf(w, "           ", "  %-8s %s\n", "absent", strings.Join(absent, "; "))
	}

	if len(res.Skills) > 0 {
		cliout.Printf(w, "\nSkills:\n")
		var b strings.Builder
		app.WriteSkillTable(&b, res.Skills)
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			cliout.Println(w, "  "+line)
		}
	}

	var shadowed []string
	for _, s := range res.Skills {
		if s.ShadowedBy != nil {
			shadowed = append(shadowed, fmt.Sprintf("  %s: %s %s is shadowed by %s %s",
				s.QualifiedName(), s.Layer, app.DisplayPath(s.Dir), s.ShadowedBy.Layer, app.DisplayPath(s.ShadowedBy.Dir)))
		}
	}
	section(w, "Shadowed skills (agents load the first):", shadowed)

	var dups []string
	for _, g := range res.Duplicates {
		var names []string
		for _, s := range g {
			names = append(names, s.QualifiedName()+" ("+app.DisplayPath(s.Dir)+")")
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
			compat = append(compat, fmt.Sprintf("  %s (%s): %s %s %s", s.QualifiedName(), app.DisplayPath(s.Dir), is.Agent, verdict, is.Message))
		}
	}
	section(w, "Agent compatibility:", compat)

	var lines []string
	for _, d := range app.RelativeDiagnostics(diags) {
		lines = append(lines, "  "+d.String())
	}
	section(w, "Diagnostics:", lines)

	cliout.Printf(w, "\n%s: %d active, %d shadowed, %d broken; %s, %s\n",
		app.Plural(sum.Skills, "skill"), sum.Active, sum.Shadowed, sum.Broken, app.Plural(sum.Errors, "error"), app.Plural(sum.Warnings, "warning"))
}

// section prints a heading and its lines, or nothing when there are none.
func section(w io.Writer, heading string, lines []string) {
	if len(lines) == 0 {
		return
	}
	cliout.Printf(w, "\n%s\n", heading)
	for _, l := range lines {
		cliout.Reportf(w, "      ", "%s", l)
	}
}

// doctorTargets opens the store and reads its targets, when there is a
// store: doctor works without one (nil, nil then).
func doctorTargets(ctx context.Context, g app.Global) (*store.Store, []target.Target) {
	dir, err := g.StoreDir()
	if err != nil || !store.Exists(dir) {
		return nil, nil
	}
	s, err := g.OpenStore(ctx)
	if err != nil {
		return nil, nil
	}
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return nil, nil
	}
	return s, targets
}

// targetContextCosts measures every target of the store (none when
// there is no store: doctor works without one).
func targetContextCosts(targets []target.Target) []app.ContextCost {
	out := []app.ContextCost{}
	for _, t := range targets {
		out = append(out, app.MeasureTarget(t))
	}
	return out
}

// targetCrossRefs finds, when there is a store with targets, the
// PLUGIN:NAME references in exported skills that a flat target cannot
// resolve (crossReferences); doctor works without a store.
func targetCrossRefs(ctx context.Context, g app.Global, s *store.Store, targets []target.Target) []CrossRef {
	out := []CrossRef{}
	if len(targets) == 0 {
		return out
	}
	refs, err := crossReferences(ctx, s, targets)
	if err != nil {
		g.Log.Debug("cross-references not checked", "err", err)
		return out
	}
	return append(out, refs...)
}

// writeCrossRefs prints one line per unresolved reference and, once, what
// to do about it.
func writeCrossRefs(w io.Writer, refs []CrossRef) {
	if len(refs) == 0 {
		return
	}
	cliout.Printf(w, "\nCross-references that do not resolve in flat targets (the agent knows a skill by its folder name there):\n")
	for _, r := range refs {
		sees := "no skill of that name is exported there"
		if r.Sees != "" {
			sees = "the agent sees it as " + r.Sees
		}
		cliout.Reportf(w, "      ", "  %s: %s (%s:%d) refers to %s; %s\n", r.Target, r.Skill, r.File, r.Line, r.Ref, sees)
	}
	cliout.Println(w, "  Plugins whose skills refer to each other as PLUGIN:NAME keep working when exported as a Claude Code plugin:")
	cliout.Println(w, "  add a target of kind claude-marketplace and narrow the flat target's skills.")
}

// doubleLoadedSkills counts the skills some agent loads more than once.
func doubleLoadedSkills(doubles []target.DoubleLoad) int {
	seen := map[string]bool{}
	for _, d := range doubles {
		for _, sk := range d.Skills {
			seen[sk] = true
		}
	}
	return len(seen)
}
