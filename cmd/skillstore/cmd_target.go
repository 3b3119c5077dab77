package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/reload/target"
)

// The targets' commands: target (add, set, detect, list, rm), export,
// status and capture.

func targetCommand() *cli.Command {
	return &cli.Command{
		Name:     "target",
		Category: "targets",
		Usage:    "manage the agents' skills folders that export writes to",
		Description: "A target is an agent's skills folder (~/.claude/skills, ~/.agents/skills,\n" +
			".cursor/skills, ...). 'skillstore export' writes the active published skills\n" +
			"into every target (or the ones the target selects: 'target set'), one folder\n" +
			"per skill, and never touches folders it did not create.\n\n" +
			"Exit codes: 0 success, 1 error (unknown target, store problem), 2 usage error,\n" +
			"3 store lock busy.",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "add a target folder, an agent by name, or the targets detect proposes",
				ArgsUsage: "NAME DIR | AGENT | --project AGENT [NAME] | --detected",
				Description: "Records the target NAME (lowercase letters, digits, '.', '_', '-') for the\n" +
					"folder DIR, which need not exist yet.\n\n" +
					"Agents known by name (AGENT), for this user or, with --project, for the project\n" +
					"holding the working directory (the top of its git work tree):\n" +
					agentPresetsHelp() +
					"A project's target is named PROJECT-AGENT unless NAME is given, and recorded\n" +
					"relative to the project's root. Its folder is reached from that root without\n" +
					"following a link: a .claude or .claude/skills that is a symbolic link (a cloned\n" +
					"project's, or one a pull swaps in later) is refused by name, here and at every\n" +
					"export, status and capture, and nothing is written through it. Two targets whose\n" +
					"folders are one (or one inside the other) once links are followed are refused,\n" +
					"here and at every export and status, naming both: remove one of them. Export's\n" +
					"bookkeeping folder (.skillstore) ignores itself for git, so it never shows in\n" +
					"the project's 'git status'. Several agents read several of these folders\n" +
					"(Copilot and OpenCode read ~/.claude/skills and ~/.agents/skills): when two\n" +
					"targets reach one agent with the same skill, the agent loads it twice, and add,\n" +
					"list, export and doctor warn.\n" +
					"--detected adds the targets 'skillstore target detect' proposes: the fewest\n" +
					"folders that reach every agent found, none loaded twice where that can be avoided.\n\n" +
					selectionHelp +
					"Examples:\n" +
					"  skillstore target add claude\n" +
					"  skillstore target add --project cursor\n" +
					"  skillstore target add --detected\n" +
					"  skillstore target add work ~/work/.claude/skills --only 'deploy*' --only @work\n" +
					"  skillstore target add codex --except superpowers --max-budget agent\n\n" +
					"--kind KIND makes DIR a local plugin marketplace in one agent's format: export\n" +
					"writes its catalog and one folder per plugin under DIR/plugins/ (manifest,\n" +
					"skills/NAME/, the agent's commands, agents, hooks ...). Kinds:\n" +
					target.KindsHelp() +
					"A plugin that came in another agent's format is translated where the formats can\n" +
					"say it (agents/NAME.md and agents/NAME.agent.md, .mcp.json and mcp.json, the\n" +
					"manifest's common keys); what the kind cannot say (another agent's hooks, rules\n" +
					"or commands, manifest keys it has no place for) is left out and named by export.\n" +
					"--marketplace names the catalog (default skillstore; names the agent keeps for its\n" +
					"own marketplaces are refused), --managed-plugin NAME carries the managed skills as\n" +
					"one more plugin. Example:\n" +
					"  skillstore target add cc ~/skillstore-plugins --kind claude-marketplace\n" +
					"  skillstore export cc && claude plugin marketplace add ~/skillstore-plugins",
				Flags: append(append(selectionFlags(),
					&cli.StringFlag{Name: "project", Usage: "add `AGENT`'s folder (" + strings.Join(agentNames(), ", ") + ") in the current project"},
					&cli.BoolFlag{Name: "detected", Usage: "add every target 'skillstore target detect' proposes"},
				), targetKindFlags()...),
				Action: runTargetAdd,
			},
			targetSetCommand(),
			targetDetectCommand(),
			{
				Name:  "list",
				Usage: "list targets",
				Flags: []cli.Flag{newJSONFlag()},
				Action: func(c *cli.Context) error {
					if _, err := storeArgs(c, 0, 0); err != nil {
						return err
					}
					return app.ListTargets(c.Context, app.TargetOptions{Global: global(c), Output: output(c)})
				},
			},
			{
				Name:      "rm",
				Usage:     "forget a target (its folder is left as it is)",
				ArgsUsage: "NAME",
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return app.WithHint(app.UsageErrorf("target rm takes one NAME"), "run 'skillstore target list' to see the targets")
					}
					return app.RemoveTarget(c.Context, app.TargetOptions{Global: global(c), Name: c.Args().First()})
				},
			},
		},
	}
}

func runTargetAdd(c *cli.Context) error {
	only, except, maxBudget, err := selectionArgs(c)
	if err != nil {
		return err
	}
	if maxBudget == "none" {
		maxBudget = ""
	}
	if c.Bool("detected") {
		if c.NArg() > 0 || c.IsSet("project") || c.IsSet("kind") {
			return app.UsageErrorf("target add --detected takes no NAME, DIR, AGENT, --project or --kind")
		}
		return app.AddDetected(c.Context, app.AddTargetOptions{Global: global(c), Skills: only, Except: except, MaxBudget: maxBudget})
	}
	name, dir, project, err := targetAddArgs(c)
	if err != nil {
		return err
	}
	if err := target.CheckName(name); err != nil {
		return app.UsageErrorf("%v", err)
	}
	opts := app.AddTargetOptions{Global: global(c), Name: name, Dir: dir, Project: project, Skills: only, Except: except, MaxBudget: maxBudget}
	if err := targetKind(c, &opts); err != nil {
		return err
	}
	return app.AddTarget(c.Context, opts)
}

// selectionHelp documents the selection and budget flags of target add
// and target set.
const selectionHelp = "A target holds every active skill, or those --only selects (repeatable), minus\n" +
	"those --except selects (repeatable). A pattern is NAME or PLUGIN:NAME (globs\n" +
	"allowed: 'git-*', 'superpowers:*'), a plugin's name (all its skills), or @TAG\n" +
	"(the skills tagged with 'skillstore tag add TAG SKILL...'). '!PATTERN' leaves\n" +
	"out, as in 'plugin add --skill': --only patterns are read in order, the last one\n" +
	"that selects a skill deciding, and a list that starts with '!' starts from every\n" +
	"skill (--only '!beta': all but beta; --only 'git-*' --only '!git-old': the git-\n" +
	"skills but git-old). --except leaves out already and takes no '!'. --skills is\n" +
	"--only's older name. --max-budget refuses to export into the target when its\n" +
	"skills list would be longer: N characters, or 'agent' for the budget the agent\n" +
	"documents (Claude Code: about 1% of the context window, 8,000 characters when\n" +
	"unknown; Codex: about 2%, 8,000 characters when unknown; see 'skillstore export\n" +
	"--help').\n\n"

// selectionFlags are the flags that choose a target's skills and budget.
func selectionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "only", Aliases: []string{"skills"}, Usage: "hold only the skills `PATTERN` selects (NAME, PLUGIN:NAME, a plugin, @TAG; globs; '!PATTERN' leaves out; repeatable)"},
		&cli.StringSliceFlag{Name: "except", Usage: "leave out the skills `PATTERN` selects (repeatable)"},
		&cli.StringFlag{Name: "max-budget", Usage: "refuse to export when the skills list would pass `N` characters, or 'agent' for the agent's documented budget"},
	}
}

// selectionArgs reads and checks --only, --except and --max-budget.
func selectionArgs(c *cli.Context) (only, except []string, maxBudget string, err error) {
	only, except = c.StringSlice("only"), c.StringSlice("except")
	if err := (target.Target{Skills: only, Except: except}).CheckSelection(); err != nil {
		return nil, nil, "", app.UsageErrorf("%v", err)
	}
	maxBudget = c.String("max-budget")
	if maxBudget != "none" {
		if _, _, err := target.ParseMaxBudget(maxBudget); err != nil {
			return nil, nil, "", app.UsageErrorf("--max-budget: %v", err)
		}
	}
	return only, except, maxBudget, nil
}

// agentPresetsHelp lists the presets of the agent table: name, user
// folder, project folder, agent.
func agentPresetsHelp() string {
	var b strings.Builder
	for _, a := range discover.Agents() {
		title := a.Title
		if a.Generic {
			title = "the folder Codex, Copilot, Gemini CLI, OpenCode share"
		}
		b.WriteString(fmt.Sprintf("  %-9s ~/%-25s <project>/%-16s (%s)\n", a.Name, a.ExportDir(false), a.ExportDir(true), title))
	}
	return b.String()
}

func targetSetCommand() *cli.Command {
	return &cli.Command{
		Name:      "set",
		Usage:     "change the skills a target holds, or its max budget",
		ArgsUsage: "NAME",
		Description: "Each option given replaces the target's setting: --only and --except its\n" +
			"patterns, --all clears both (every skill), --max-budget its budget ('none'\n" +
			"clears it). The next export applies it: skills no longer selected are removed\n" +
			"from the folder, new ones written.\n\n" +
			selectionHelp +
			"Examples:\n" +
			"  skillstore target set claude --only @daily --only 'superpowers:*'\n" +
			"  skillstore target set claude --except @rare --max-budget agent\n" +
			"  skillstore target set claude --only '!alpha'\n" +
			"  skillstore target set claude --all --max-budget none\n\n" +
			"Exit codes: 0 success, 1 error (unknown target, store problem), 2 usage error,\n" +
			"3 store lock busy.",
		Flags: append(selectionFlags(), &cli.BoolFlag{Name: "all", Usage: "hold every skill again (clears --only and --except)"}),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return app.WithHint(app.UsageErrorf("target set takes one NAME"), "run 'skillstore target list' to see the targets")
			}
			only, except, maxBudget, err := selectionArgs(c)
			if err != nil {
				return err
			}
			if !c.IsSet("only") && !c.IsSet("except") && !c.IsSet("all") && !c.IsSet("max-budget") {
				return app.UsageErrorf("target set %s: give --only, --except, --all or --max-budget", c.Args().First())
			}
			opts := app.SetTargetOptions{Global: global(c), Name: c.Args().First(), Only: only, Except: except,
				SetOnly: c.IsSet("only"), SetExcept: c.IsSet("except"), All: c.Bool("all")}
			if c.IsSet("max-budget") {
				opts.MaxBudget = &maxBudget
			}
			return app.SetTarget(c.Context, opts)
		},
	}
}

// targetAddArgs reads the three forms of 'target add': NAME DIR, AGENT
// (a preset's user folder) and --project AGENT [NAME] (the preset's folder
// in the current project). project is the project's root for the last.
func targetAddArgs(c *cli.Context) (name, dir, project string, err error) {
	args := c.Args().Slice()
	known := strings.Join(agentNames(), ", ")
	if agent := c.String("project"); agent != "" {
		a, ok := discover.FindAgent(agent)
		if !ok {
			return "", "", "", app.WithHint(app.UsageErrorf("--project %q is not an agent skillstore knows", agent), "known agents: "+known)
		}
		if len(args) > 1 {
			return "", "", "", app.UsageErrorf("target add --project %s takes at most a NAME", agent)
		}
		root, err := app.ProjectRoot(c.Context)
		if err != nil {
			return "", "", "", err
		}
		name = app.ProjectTargetName(root, a)
		if len(args) == 1 {
			name = args[0]
		}
		return name, filepath.Join(root, filepath.FromSlash(a.ExportDir(true))), root, nil
	}
	switch len(args) {
	case 2:
		return args[0], args[1], "", nil
	case 1:
		a, ok := discover.FindAgent(args[0])
		if !ok {
			err := app.UsageErrorf("target add %s: give the folder (target add NAME DIR), or an agent skillstore knows", args[0])
			if s := suggestNames(args[0], agentNames()); len(s) > 0 {
				err = app.WithHint(err, "did you mean "+quoteList(s)+"?")
			}
			return "", "", "", app.WithHint(err, "known agents: "+known)
		}
		dir, err := app.AgentUserDir(a)
		return a.Name, dir, "", err
	}
	return "", "", "", app.WithHint(app.UsageErrorf("target add takes NAME and DIR, or an agent: %s", known), "run 'skillstore target add --help' for usage")
}

// agentNames are the names of the agents skillstore knows.
func agentNames() []string {
	var out []string
	for _, a := range discover.Agents() {
		out = append(out, a.Name)
	}
	return out
}

// targetKindFlags are the flags of 'target add' for a marketplace target.
func targetKindFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "kind", Value: "skills", Usage: "what export writes: skills (one folder per skill), or a local plugin marketplace: " +
			strings.Join(target.MarketplaceKinds(), ", ")},
		&cli.StringFlag{Name: "marketplace", Usage: "the marketplace's `NAME` in its catalog (default " + target.DefaultMarketplace + ")"},
		&cli.StringFlag{Name: "managed-plugin", Usage: "export the managed skills (those no plugin owns) as the plugin `NAME`; without it they are left out"},
	}
}

// targetKind reads --kind, --marketplace and --managed-plugin into t.
func targetKind(c *cli.Context, t *app.AddTargetOptions) error {
	kind := c.String("kind")
	if !slices.Contains(target.Kinds, kind) {
		return app.UsageErrorf("--kind %q: kinds are %s", kind, strings.Join(target.Kinds, ", "))
	}
	if kind == "skills" {
		kind = target.KindSkills
	}
	t.Kind, t.Marketplace, t.ManagedPlugin = kind, c.String("marketplace"), c.String("managed-plugin")
	if t.Kind == target.KindSkills && (t.Marketplace != "" || t.ManagedPlugin != "") {
		return app.UsageErrorf("--marketplace and --managed-plugin need a marketplace --kind (%s)", strings.Join(target.MarketplaceKinds(), ", "))
	}
	r := target.Target{Kind: t.Kind, Marketplace: t.Marketplace}
	if r.IsMarketplace() && (c.String("project") != "" || c.NArg() != 2) {
		return app.UsageErrorf("target add --kind %s takes NAME and DIR (the marketplace folder)", t.Kind)
	}
	if r.IsMarketplace() && !r.HasCatalog() && t.Marketplace != "" {
		return app.UsageErrorf("--kind %s has no catalog to name: leave out --marketplace", t.Kind)
	}
	if r.IsMarketplace() {
		if err := target.CheckMarketplaceName(t.Kind, r.MarketplaceName()); err != nil {
			return app.UsageErrorf("%v", err)
		}
	}
	return nil
}

func targetDetectCommand() *cli.Command {
	return &cli.Command{
		Name:  "detect",
		Usage: "propose targets for the agents found on this machine and in this project",
		Description: "Looks for the agents skillstore knows (see 'target add --help'): for this user\n" +
			"by their folder in $HOME (~/.claude, ~/.codex, ~/.cursor, ~/.copilot, ~/.gemini,\n" +
			"~/.config/opencode) or their command on $PATH (claude, codex, cursor-agent,\n" +
			"copilot, gemini, opencode), and Codex's admin folder /etc/codex/skills (reported:\n" +
			"skillstore never writes there); in the project holding the working directory by\n" +
			"their entries in its root (.claude, .codex, .cursor, .github/skills or\n" +
			".github/copilot-instructions.md, .gemini, .opencode, ...).\n\n" +
			"It then proposes, for this user and for the project, the fewest folders that\n" +
			"reach every agent found without any agent reading two of them (an exact search\n" +
			"over the agents' folders), counting the targets that already export there. When\n" +
			"no choice avoids it (Claude Code needs ~/.claude/skills, Codex ~/.agents/skills,\n" +
			"and Copilot and OpenCode read both) it says so: give those targets disjoint\n" +
			"skills with 'skillstore target set NAME --except PATTERN'. Each folder is shown\n" +
			"with the agents that read it and the target already exporting there or the\n" +
			"command that adds one; 'skillstore target add --detected' adds them all.\n" +
			"A project's folder reached through a symbolic link in the project (.claude ->\n" +
			"~/.claude) is shown as refused, naming the link, and --detected does not add it.\n" +
			"Nothing is written.\n\n" +
			"Exit codes: 0 success, 1 error, 3 store lock busy.",
		Flags: []cli.Flag{newJSONFlag()},
		Action: func(c *cli.Context) error {
			if _, err := storeArgs(c, 0, 0); err != nil {
				return err
			}
			return app.DetectTargets(c.Context, app.TargetOptions{Global: global(c), Output: output(c)})
		},
	}
}

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Category:  "targets",
		Usage:     "write the published skills into the target folders",
		ArgsUsage: "[TARGET...]",
		Description: "Writes the latest version of every active skill into each target (all targets\n" +
			"unless some are named), one folder per skill, and removes the folders of skills\n" +
			"it exported earlier that are now disabled, removed or no longer selected by the\n" +
			"target's --only and --except patterns. Only skills whose version changed are touched; each\n" +
			"folder is switched atomically, so an agent reading it sees the old version or\n" +
			"the new one, never a mix.\n\n" +
			"Each skill is reported as hot (only SKILL.md changed: the agent re-reads it),\n" +
			"cold (first install, files, modes or symlinks changed: restart the agent),\n" +
			"unchanged (listed with --verbose), removed, locally-modified (someone edited the folder since export\n" +
			"wrote it: left alone, see 'skillstore capture'), foreign (a folder export did\n" +
			"not create: left alone), linked (the folder is a symbolic link, as in a\n" +
			"dotfiles setup: left alone) or failed. A folder export did not create whose\n" +
			"files are exactly the version it would write is adopted (recorded as exported,\n" +
			"nothing written). With --replace-links, a symbolic link export did not create\n" +
			"that points at a copy skillstore manages (a folder another target's export\n" +
			"wrote, or one holding a version of the skill, as 'npx skills' links\n" +
			"~/.claude/skills/NAME to ~/.agents/skills/NAME) is replaced by the exported\n" +
			"folder and reported link-replaced; the folder it pointed at is left as it is.\n" +
			"A link put in place of a folder export wrote stays linked.\n\n" +
			"Export prints a line per skill it did something with, then one summary line\n" +
			"('2 targets, 30 skill folders: 1 installed, 29 unchanged'); an export with\n" +
			"nothing to do prints the summary alone. File lists are summarised to fit the\n" +
			"terminal ('SKILL.md, scripts/run.sh and 10 more'); --verbose lists every file\n" +
			"and the unchanged skills too.\n\n" +
			"The skills list: before writing, export measures what each target's skills will\n" +
			"cost the always-loaded skills list of the agents reading its folder, in their own\n" +
			"unit and form: Claude Code lists name, description and when_to_use, the last two\n" +
			"cut at 1,536 characters per skill, within about 1% of the context window (8,000\n" +
			"characters when unknown), and drops the descriptions of the skills used least\n" +
			"first (code.claude.com/docs/en/skills); Codex lists '- NAME: DESCRIPTION (file:\n" +
			"PATH)' per skill within about 2% of the context window (8,000 characters when\n" +
			"unknown), shortens descriptions first, then leaves skills out\n" +
			"(developers.openai.com/codex/skills). skillstore measures against the 8,000\n" +
			"characters. Cursor, Copilot, Gemini CLI and OpenCode document no limit. A target\n" +
			"over its agent's budget is written, with a warning naming the skills the agent\n" +
			"cuts first and how to select fewer (skillstore target set NAME --only/--except).\n" +
			"--max-budget N (or the target's own, 'target set NAME --max-budget') refuses a\n" +
			"target whose list would pass N characters, or with 'agent' its agent's budget:\n" +
			"nothing is written into it, the other targets are exported, and export exits 1.\n\n" +
			"Exit codes: 0 every target written (skipped skills are reported, not errors),\n" +
			"1 a target or skill failed or a target is over its max budget, 2 usage error,\n" +
			"3 store lock busy.",
		Flags: []cli.Flag{newJSONFlag(), verboseFlag(), dryRunFlag("report what export would do in each target, writing nothing"),
			&cli.BoolFlag{Name: "replace-links", Usage: "replace skill folders that are symbolic links to copies skillstore manages with the exported folders"},
			&cli.StringFlag{Name: "max-budget", Usage: "refuse a target whose skills list would pass `N` characters ('agent': its agent's documented budget), in place of the target's own"}},
		Action: func(c *cli.Context) error {
			maxBudget := c.String("max-budget")
			if _, _, err := target.ParseMaxBudget(maxBudget); err != nil {
				return app.UsageErrorf("--max-budget: %v", err)
			}
			return app.Export(c.Context, app.ExportOptions{Global: global(c), Output: output(c), Targets: c.Args().Slice(),
				ReplaceLinks: c.Bool("replace-links"), DryRun: c.Bool("dry-run"), MaxBudget: maxBudget})
		},
	}
}

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:     "status",
		Category: "targets",
		Usage:    "show skills edited in the target folders since export wrote them",
		Description: "Compares every skill folder export wrote into each target with what export\n" +
			"wrote, and lists the ones a person changed (modified, with the changed paths\n" +
			"and whether the change is hot or cold), deleted (missing), and the ones whose\n" +
			"published version is newer than the exported one (outdated: run export).\n" +
			"A skill folder that is a symbolic link (a dotfiles setup) is shown as linked:\n" +
			"export and capture leave it alone. An edit made while export replaced a\n" +
			"folder is shown as raced, with the folder under .skillstore that keeps it.\n" +
			"A skill the target would get whose folder there export did not create (and\n" +
			"which does not hold the published version) is shown as foreign, every time;\n" +
			"sync reports it only the first time.\n" +
			"Capture modified and raced skills with 'skillstore capture'.\n\n" +
			"Exit codes: 0 success (whether or not anything was edited), 1 error,\n" +
			"3 store lock busy.",
		Flags: []cli.Flag{newJSONFlag(), verboseFlag()},
		Action: func(c *cli.Context) error {
			if _, err := storeArgs(c, 0, 0); err != nil {
				return err
			}
			return app.Status(c.Context, app.StatusOptions{Global: global(c), Output: output(c)})
		},
	}
}

func captureCommand() *cli.Command {
	return &cli.Command{
		Name:      "capture",
		Category:  "targets",
		Usage:     "record skills edited in the target folders as new versions",
		ArgsUsage: "[SKILL...]",
		Description: "Records each skill folder that a person edited in a target (see 'skillstore\n" +
			"status') as a new version of the skill, with git's author identity as the\n" +
			"actor ($GIT_AUTHOR_NAME/EMAIL, else user.name/email; 'local' when git knows\n" +
			"neither) and the reason given, so the next export and sync keep the edit instead of overwriting it.\n" +
			"Without SKILL arguments every edited skill is captured.\n\n" +
			"Every edit is recorded in one store transaction; a progress line is shown\n" +
			"on a terminal.\n\n" +
			"A skill whose published version also changed since export wrote it (after\n" +
			"a sync or 'pull --export') is merged: the edit, the version it started from\n" +
			"and the published version make a three-way candidate for review\n" +
			"('skillstore candidates'); the folder is left as it is until the candidate\n" +
			"is accepted or rejected, after which the next capture or sync lets export\n" +
			"replace it (integrated). An edit made while export replaced the folder is\n" +
			"kept under the target's .skillstore folder (status shows it as raced) and\n" +
			"captured the same way. An edited SKILL.md that no longer validates, or an\n" +
			"edit the safety check refuses, is not captured.\n\n" +
			"Exit codes: 0 every edited skill captured (or none edited), 1 some skill\n" +
			"not captured (the output says why), 2 usage error, 3 store lock busy,\n" +
			"4 edits were merged into candidates that wait for review.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "why the skill was edited (recorded on the version)"},
			&cli.StringSliceFlag{Name: "target", Usage: "capture only from target `NAME` (repeatable)"},
			newJSONFlag(), verboseFlag(),
			dryRunFlag("report what capture would record, writing nothing"),
		},
		Action: func(c *cli.Context) error {
			return app.Capture(c.Context, app.CaptureOptions{Global: global(c), Output: output(c), Skills: c.Args().Slice(),
				Targets: c.StringSlice("target"), Reason: c.String("reason"), DryRun: c.Bool("dry-run")})
		},
	}
}
