package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload/target"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/store"
)

func targetCommand() *cli.Command {
	return &cli.Command{
		Name:     "target",
		Category: "targets",
		Usage:    "manage the agents' skills folders that export writes to",
		Description: "A target is an agent's skills folder (~/.claude/skills, ~/.codex/skills,\n" +
			".agents/skills, ...). 'skillstore export' writes the active published skills\n" +
			"into every target, one folder per skill, and never touches folders it did\n" +
			"not create.\n\n" +
			"Exit codes: 0 success, 1 error (unknown target, store problem), 2 usage error,\n" +
			"3 store lock busy.",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "add a target folder, or an agent by name",
				ArgsUsage: "NAME DIR | AGENT | --project AGENT [NAME]",
				Description: "Records the target NAME (lowercase letters, digits, '.', '_', '-') for the\n" +
					"folder DIR, which need not exist yet. --skills limits the target to skills\n" +
					"whose names match one of the glob patterns (repeatable, e.g. --skills 'git-*').\n\n" +
					"Agents known by name (AGENT), for this user or, with --project, for the project\n" +
					"holding the working directory (the top of its git work tree):\n" +
					"  claude   ~/.claude/skills      <project>/.claude/skills   (Claude Code)\n" +
					"  codex    ~/.agents/skills      <project>/.agents/skills   (Codex)\n" +
					"  agents   ~/.agents/skills      <project>/.agents/skills   (agents reading .agents)\n" +
					"A project's target is named PROJECT-AGENT unless NAME is given, and recorded\n" +
					"relative to the project's root. Export's bookkeeping folder (.skillstore) ignores\n" +
					"itself for git, so it never shows in the project's 'git status'.\n" +
					"'skillstore target detect' proposes the agents found on this machine.\n\n" +
					"Examples:\n" +
					"  skillstore target add claude\n" +
					"  skillstore target add --project claude\n" +
					"  skillstore target add work ~/work/.claude/skills --skills 'deploy*' --skills lint\n\n" +
					"--kind claude-marketplace makes DIR a local Claude Code plugin marketplace:\n" +
					"export writes DIR/.claude-plugin/marketplace.json and one folder per plugin\n" +
					"under DIR/plugins/ (manifest, skills/NAME/, commands/, agents/, hooks/ ...).\n" +
					"--marketplace names it (default skillstore; Anthropic's names are refused),\n" +
					"--managed-plugin NAME carries the managed skills as one more plugin.\n" +
					"--kind codex-marketplace does the same for Codex (.agents/plugins/marketplace.json,\n" +
					".codex-plugin/plugin.json, skills and .mcp.json only). Example:\n" +
					"  skillstore target add cc ~/skillstore-plugins --kind claude-marketplace\n" +
					"  skillstore export cc && claude plugin marketplace add ~/skillstore-plugins",
				Flags: append([]cli.Flag{
					&cli.StringSliceFlag{Name: "skills", Usage: "export only skills matching `GLOB` (repeatable)"},
					&cli.StringFlag{Name: "project", Usage: "add `AGENT`'s folder (claude, codex, agents) in the current project"},
				}, targetKindFlags()...),
				Action: runTargetAdd,
			},
			targetDetectCommand(),
			{
				Name:   "list",
				Usage:  "list targets",
				Flags:  []cli.Flag{newJSONFlag()},
				Action: runTargetList,
			},
			{
				Name:      "rm",
				Usage:     "forget a target (its folder is left as it is)",
				ArgsUsage: "NAME",
				Action:    runTargetRm,
			},
		},
	}
}

// readTargets returns the targets named (all of them when names is empty),
// sorted by name.
func readTargets(c *cli.Context, s *store.Store, names []string) ([]target.Target, error) {
	return target.List(c.Context, s, names)
}

func runTargetAdd(c *cli.Context) error {
	name, dir, project, err := targetAddArgs(c)
	if err != nil {
		return err
	}
	if err := target.CheckName(name); err != nil {
		return usageErrorf("%v", err)
	}
	globs := c.StringSlice("skills")
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			return usageErrorf("--skills %q is not a valid glob pattern", g)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if info, err := os.Stat(abs); err == nil && !info.IsDir() {
		return withHint(fmt.Errorf("target %s: %s is not a folder", name, abs), "give the agent's skills folder, for example ~/.claude/skills")
	}
	t := target.Target{Name: name, Dir: abs, Skills: globs, Project: project}
	if err := targetKind(c, &t); err != nil {
		return err
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	if err := target.Add(c.Context, s, t); err != nil {
		return err
	}
	if t.IsMarketplace() {
		cliout.Printf(getEnv(c).stdout, "added target %s: %s marketplace %s at %s\n%s\n", name, t.Kind, t.MarketplaceName(), abs, marketplaceAdded(t))
		return nil
	}
	if project != "" {
		rel, _ := filepath.Rel(project, abs)
		cliout.Printf(getEnv(c).stdout, "added target %s: %s in project %s\n", name, filepath.ToSlash(rel), project)
		return nil
	}
	cliout.Printf(getEnv(c).stdout, "added target %s: %s\n", name, abs)
	return nil
}

func runTargetList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("target list takes no arguments")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	targets, err := readTargets(c, s, nil)
	if err != nil {
		return err
	}
	e := getEnv(c)
	if c.Bool("json") {
		views := []targetView{}
		for _, t := range targets {
			cost := measureTarget(t)
			views = append(views, targetView{Target: t, Context: &cost})
		}
		return cliout.JSON(e.stdout, views)
	}
	if len(targets) == 0 {
		cliout.Println(e.stdout, "no targets; add one with 'skillstore target add NAME DIR'")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
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

func runTargetRm(c *cli.Context) error {
	if c.NArg() != 1 {
		return withHint(usageErrorf("target rm takes one NAME"), "run 'skillstore target list' to see the targets")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	t, err := target.Remove(c.Context, s, c.Args().First())
	if err != nil {
		return err
	}
	cliout.Printf(getEnv(c).stdout, "removed target %s; its folder %s is left as it is\n", t.Name, t.Dir)
	return nil
}

// targetView is a target in 'target list --json': its record and what
// its skills cost the agent's context (see doctor).
type targetView struct {
	target.Target
	Context *contextCost `json:"context"`
}
