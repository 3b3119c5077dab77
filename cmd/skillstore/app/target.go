package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// AddTargetOptions are target add's, its arguments read: the target's
// name and folder (relative to the working directory), the project it
// belongs to when added with --project, and its record's settings.
type AddTargetOptions struct {
	Global
	Name, Dir, Project string
	// Skills limits the target to the skills one of these patterns
	// selects (--only; see package skillsel), Except leaves out the ones
	// its patterns select.
	Skills, Except []string
	// MaxBudget refuses an export whose skills list would go past it (see
	// target.ParseMaxBudget).
	MaxBudget string
	// Kind is what export writes (target.KindSkills or a marketplace);
	// Marketplace and ManagedPlugin are a marketplace target's.
	Kind, Marketplace, ManagedPlugin string
}

// AddTarget records a target.
func AddTarget(ctx context.Context, opts AddTargetOptions) error {
	name, project := opts.Name, opts.Project
	abs, err := filepath.Abs(opts.Dir)
	if err != nil {
		return err
	}
	if info, err := os.Stat(abs); err == nil && !info.IsDir() {
		return WithHint(fmt.Errorf("target %s: %s is not a folder", name, abs), "give the agent's skills folder, for example ~/.claude/skills")
	}
	t := target.Target{Name: name, Dir: abs, Skills: opts.Skills, Except: opts.Except, MaxBudget: opts.MaxBudget, Project: project,
		Kind: opts.Kind, Marketplace: opts.Marketplace, ManagedPlugin: opts.ManagedPlugin}
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	if err := target.Add(ctx, s, t); err != nil {
		return err
	}
	switch {
	case t.IsMarketplace() && !t.HasCatalog():
		cliout.Printf(opts.Stdout, "added target %s: %s at %s\n%s\n", name, t.Kind, abs, marketplaceAdded(t))
		return nil
	case t.IsMarketplace():
		cliout.Printf(opts.Stdout, "added target %s: %s marketplace %s at %s\n%s\n", name, t.Kind, t.MarketplaceName(), abs, marketplaceAdded(t))
		return nil
	case project != "":
		rel, _ := filepath.Rel(project, abs)
		cliout.Printf(opts.Stdout, "added target %s: %s in project %s\n", name, filepath.ToSlash(rel), project)
	default:
		cliout.Printf(opts.Stdout, "added target %s: %s\n", name, abs)
	}
	warnDoubleLoads(ctx, opts.Global, opts.Stdout, s, name)
	return nil
}

// marketplaceAdded tells how to add a new marketplace target to its agent,
// once (the steps of its kind, see target.MarketplaceSteps): several lines,
// each name in them quoted (cliout.Quote).
func marketplaceAdded(t target.Target) cliout.Quoted {
	h := target.MarketplaceSteps(t.Kind, cliout.Quote(t.Dir), cliout.Quote(t.MarketplaceName()))
	return cliout.Quoted(fmt.Sprintf("after 'skillstore export %s', add it to %s once:\n  %s", cliout.Quote(t.Name), h.Agent, strings.Join(h.Add, "\n  ")))
}

// TargetOptions are the options of the target commands that take at most
// a name.
type TargetOptions struct {
	Global
	Output
	Name string
}

// targetView is a target in 'target list --json': its record, what its
// skills cost the agent's context (see doctor), the agents that read its
// folder, and the agents it and another target both reach.
type targetView struct {
	target.Target
	Context     *ContextCost        `json:"context"`
	ReadBy      []string            `json:"read_by"`
	DoubleLoads []target.DoubleLoad `json:"double_loads,omitempty"`
}

// ListTargets prints the targets, their selections, and the agents that
// would load a skill twice because two targets reach them.
func ListTargets(ctx context.Context, opts TargetOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return err
	}
	doubles := DoubleLoads(ctx, opts.Global, s, targets)
	if opts.JSON {
		views := []targetView{}
		for _, t := range targets {
			cost := MeasureTarget(t)
			views = append(views, targetView{Target: t, Context: &cost, ReadBy: titles(t.Reach(homeDir()).Agents), DoubleLoads: doublesOf(doubles, t.Name)})
		}
		return cliout.JSON(opts.Stdout, views)
	}
	if len(targets) == 0 {
		cliout.Println(opts.Stdout, "no targets; add one with 'skillstore target add NAME DIR'")
		return nil
	}
	tw := tabwriter.NewWriter(opts.Stdout, 0, 4, 2, ' ', 0)
	cliout.Printf(tw, "NAME\tDIR\tSKILLS\n")
	for _, t := range targets {
		skills := t.Selection().String()
		if t.MaxBudget != "" {
			skills += " (max budget " + t.MaxBudget + ")"
		}
		switch {
		case t.IsMarketplace() && !t.HasCatalog():
			skills += " (" + t.Kind + ")"
		case t.IsMarketplace():
			skills += " (" + t.Kind + " " + t.MarketplaceName() + ")"
		}
		cliout.Printf(tw, "%s\t%s\t%s\n", t.Name, t.Dir, skills)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	WriteDoubleLoads(opts.Stdout, doubles)
	return nil
}

// RemoveTarget forgets a target; its folder is left as it is.
func RemoveTarget(ctx context.Context, opts TargetOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	t, err := target.Remove(ctx, s, opts.Name)
	if err != nil {
		return err
	}
	cliout.Printf(opts.Stdout, "removed target %s; its folder %s is left as it is\n", t.Name, t.Dir)
	return nil
}

// AgentUserDir is the folder on this machine where 'target add AGENT'
// exports for the agent a: its first user folder in the home.
func AgentUserDir(a discover.Agent) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("target %s: %w", a.Name, err)
	}
	return filepath.Join(home, filepath.FromSlash(a.ExportDir(false))), nil
}

// ProjectRoot is the root of the project holding the working directory:
// the top of its git work tree (asked of the real git CLI), else the
// working directory itself.
func ProjectRoot(ctx context.Context) (string, error) {
	if top, err := GitOutput(ctx, "rev-parse", "--show-toplevel"); err == nil && top != "" {
		return filepath.Clean(top), nil
	}
	return os.Getwd()
}

var unsafeNameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9._-]+`) })

// ProjectTargetName names a project's target by default: the project
// folder's name and the agent's ("myapp-claude").
func ProjectTargetName(root string, a discover.Agent) string {
	base := strings.Trim(unsafeNameChars().ReplaceAllString(strings.ToLower(filepath.Base(root)), "-"), "-.")
	if base == "" {
		base = "project"
	}
	return base + "-" + a.Name
}

// SetTargetOptions are target set's: each setting given replaces the
// target's.
type SetTargetOptions struct {
	Global
	Name string
	// Only and Except, when their Set flag is on, replace the target's
	// patterns; All clears both (every skill).
	Only, Except       []string
	SetOnly, SetExcept bool
	All                bool
	// MaxBudget, when set, replaces the target's max budget ("none"
	// clears it).
	MaxBudget *string
}

// SetTarget changes a target's selection or max budget, and says what it
// now holds.
func SetTarget(ctx context.Context, opts SetTargetOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	t, err := target.Set(ctx, s, opts.Name, func(t *target.Target) {
		if opts.All {
			t.Skills, t.Except = nil, nil
		}
		if opts.SetOnly {
			t.Skills = opts.Only
		}
		if opts.SetExcept {
			t.Except = opts.Except
		}
		if opts.MaxBudget != nil {
			t.MaxBudget = *opts.MaxBudget
			if t.MaxBudget == "none" {
				t.MaxBudget = ""
			}
		}
	})
	if err != nil {
		return err
	}
	line := fmt.Sprintf("target %s: skills %s", t.Name, t.Selection())
	if t.MaxBudget != "" {
		line += ", max budget " + t.MaxBudget
	}
	if published, err := target.Published(ctx, s); err == nil {
		targets, _ := target.List(ctx, s, []string{t.Name})
		n, all := 0, 0
		for _, p := range published {
			if store.IsPluginParts(p.Name) {
				continue
			}
			all++
			if len(targets) == 1 && targets[0].Wants(p.Name) {
				n++
			}
		}
		line += fmt.Sprintf(" (%d of %d published skills); run 'skillstore export %s' to apply it", n, all, t.Name)
	}
	cliout.Println(opts.Stdout, line)
	warnDoubleLoads(ctx, opts.Global, opts.Stdout, s, t.Name)
	return nil
}
