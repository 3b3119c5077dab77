package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/reload/target"
)

// AddTargetOptions are target add's, its arguments read: the target's
// name and folder (relative to the working directory), the project it
// belongs to when added with --project, and its record's settings.
type AddTargetOptions struct {
	Global
	Name, Dir, Project string
	// Skills limits the target to the skills whose names match one of
	// these globs.
	Skills []string
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
	t := target.Target{Name: name, Dir: abs, Skills: opts.Skills, Project: project,
		Kind: opts.Kind, Marketplace: opts.Marketplace, ManagedPlugin: opts.ManagedPlugin}
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	if err := target.Add(ctx, s, t); err != nil {
		return err
	}
	if t.IsMarketplace() {
		cliout.Printf(opts.Stdout, "added target %s: %s marketplace %s at %s\n%s\n", name, t.Kind, t.MarketplaceName(), abs, marketplaceAdded(t))
		return nil
	}
	if project != "" {
		rel, _ := filepath.Rel(project, abs)
		cliout.Printf(opts.Stdout, "added target %s: %s in project %s\n", name, filepath.ToSlash(rel), project)
		return nil
	}
	cliout.Printf(opts.Stdout, "added target %s: %s\n", name, abs)
	return nil
}

// marketplaceAdded tells how to add a new marketplace target to its agent,
// once: several lines, each name in them quoted (cliout.Quote).
func marketplaceAdded(t target.Target) cliout.Quoted {
	name, dir := cliout.Quote(t.Name), cliout.Quote(t.Dir)
	if t.Kind == target.KindCodexMarketplace {
		return cliout.Quoted(fmt.Sprintf("after 'skillstore export %s', add it to Codex once: codex plugin marketplace add %s", name, dir))
	}
	return cliout.Quoted(fmt.Sprintf("after 'skillstore export %s', add it to Claude Code once:\n  claude plugin marketplace add %s\n  claude plugin install PLUGIN@%s", name, dir, cliout.Quote(t.MarketplaceName())))
}

// TargetOptions are the options of the target commands that take at most
// a name.
type TargetOptions struct {
	Global
	Output
	Name string
}

// targetView is a target in 'target list --json': its record and what
// its skills cost the agent's context (see doctor).
type targetView struct {
	target.Target
	Context *contextCost `json:"context"`
}

// ListTargets prints the targets.
func ListTargets(ctx context.Context, opts TargetOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return err
	}
	if opts.JSON {
		views := []targetView{}
		for _, t := range targets {
			cost := measureTarget(t)
			views = append(views, targetView{Target: t, Context: &cost})
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
		skills := "*"
		if len(t.Skills) > 0 {
			skills = strings.Join(t.Skills, ", ")
		}
		if t.IsMarketplace() {
			skills += " (" + t.Kind + " " + t.MarketplaceName() + ")"
		}
		cliout.Printf(tw, "%s\t%s\t%s\n", t.Name, t.Dir, skills)
	}
	return tw.Flush()
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

// detected is one agent folder target detect found.
type detected struct {
	Agent   string `json:"agent"`
	Scope   string `json:"scope"` // "user" or "project"
	Dir     string `json:"dir"`
	Target  string `json:"target,omitempty"`  // the target already exporting there
	Command string `json:"command,omitempty"` // what adds it otherwise
}

// DetectTargets proposes targets for the agents found on this machine
// (discover.Agents' markers in the home) and in the project holding the
// working directory. Nothing is written.
func DetectTargets(ctx context.Context, opts TargetOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return err
	}
	byDir := map[string]string{}
	for _, t := range targets {
		byDir[t.Dir] = t.Name
	}
	home, _ := os.UserHomeDir()
	root, _ := ProjectRoot(ctx)
	var found []detected
	seen := map[string]bool{}
	propose := func(d detected) {
		if seen[d.Dir] {
			return
		}
		seen[d.Dir] = true
		d.Target = byDir[d.Dir]
		if d.Target != "" {
			d.Command = ""
		}
		found = append(found, d)
	}
	for _, a := range discover.Agents() {
		if home != "" && anyDir(home, a.Markers) {
			dir, _ := AgentUserDir(a)
			propose(detected{Agent: a.Name, Scope: "user", Dir: dir, Command: "skillstore target add " + a.Name})
		}
	}
	if root != "" && root != home {
		for _, a := range discover.Agents() {
			top, _, _ := strings.Cut(a.ProjectDir, "/")
			if anyDir(root, []string{top}) {
				propose(detected{Agent: a.Name, Scope: "project", Dir: filepath.Join(root, filepath.FromSlash(a.ProjectDir)), Command: "skillstore target add --project " + a.Name})
			}
		}
	}
	if opts.JSON {
		if found == nil {
			found = []detected{}
		}
		return cliout.JSON(opts.Stdout, found)
	}
	if len(found) == 0 {
		cliout.Println(opts.Stdout, "no agent found: add a folder with 'skillstore target add NAME DIR'")
		return nil
	}
	t := cliout.NewTable(-1)
	t.Add("AGENT", "SCOPE", "FOLDER", "TARGET")
	for _, d := range found {
		state := "not added: " + d.Command
		if d.Target != "" {
			state = "target " + d.Target
		}
		t.Add(d.Agent, d.Scope, d.Dir, state)
	}
	return t.Write(opts.Stdout, cliout.NewPainter(opts.Stdout), 0)
}

// anyDir reports whether one of names is a folder under base.
func anyDir(base string, names []string) bool {
	for _, n := range names {
		if info, err := os.Stat(filepath.Join(base, n)); err == nil && info.IsDir() {
			return true
		}
	}
	return false
}

// AgentUserDir is the folder on this machine where 'target add AGENT'
// exports for the agent a: its first user folder in the home.
func AgentUserDir(a discover.Agent) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("target %s: %w", a.Name, err)
	}
	return filepath.Join(home, filepath.FromSlash(a.UserDirs[0])), nil
}

// ProjectRoot is the root of the project holding the working directory:
// the top of its git work tree (asked of the real git CLI), else the
// working directory itself.
func ProjectRoot(ctx context.Context) (string, error) {
	if top, err := gitOutput(ctx, "rev-parse", "--show-toplevel"); err == nil && top != "" {
		return filepath.Clean(top), nil
	}
	return os.Getwd()
}

var unsafeNameChars = regexp.MustCompile(`[^a-z0-9._-]+`)

// ProjectTargetName names a project's target by default: the project
// folder's name and the agent's ("myapp-claude").
func ProjectTargetName(root string, a discover.Agent) string {
	base := strings.Trim(unsafeNameChars.ReplaceAllString(strings.ToLower(filepath.Base(root)), "-"), "-.")
	if base == "" {
		base = "project"
	}
	return base + "-" + a.Name
}
