package main

import (
	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/doctor"
)

// The commands on skill folders on disk: discover, doctor, prompt,
// validate, new.

const layersHelp = "Skills are searched in layered roots, highest priority first:\n" +
	"  cli       --skill-dir DIR (repeatable)\n" +
	"  env       $SKILLSTORE_PATH (a list separated by ':')\n" +
	"  manifest  the folders listed in .skillstore-skills (one path per line, relative\n" +
	"            to the file) in the working directory and each parent up to the\n" +
	"            repository root\n" +
	"  project   the agents' project folders (.claude/skills, .agents/skills,\n" +
	"            .codex/skills, .cursor/skills, .github/skills, .gemini/skills,\n" +
	"            .opencode/skills) in the working directory and each parent up to the\n" +
	"            repository root\n" +
	"  config    $XDG_CONFIG_HOME/skillstore/skills (default ~/.config/skillstore/skills)\n" +
	"  user      ~/.claude/skills, ~/.agents/skills, ~/.codex/skills, ~/.cursor/skills,\n" +
	"            ~/.copilot/skills, ~/.gemini/skills, ~/.config/opencode/skills\n" +
	"  plugin    skills/ of the Claude Code plugins in ~/.claude/plugins/installed_plugins.json,\n" +
	"            named plugin:skill\n" +
	"  system    $SKILLSTORE_SYSTEM_PATH, default /etc/skillstore/skills\n" +
	"A skill shadows skills of the same name (namespace included) in lower roots of the\n" +
	"same agent: .claude folders and plugins are Claude Code's, .agents and .codex folders\n" +
	"Codex's, each other agent's own folders its own, the other roots every agent's."

func discoverCommand() *cli.Command {
	return &cli.Command{
		Name:     "discover",
		Category: "inspection",
		Usage:    "list every skill found in the layered skill roots",
		Description: "Lists every skill folder found: its qualified name, layer, status (active,\n" +
			"shadowed by a skill of the same name in a higher root, or broken) and origin.\n\n" +
			layersHelp + "\n\n" +
			"Exit codes: 0 listed (even when nothing was found), 1 error, 2 usage error.",
		Flags: []cli.Flag{skillDirFlag(), newJSONFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return app.WithHint(app.UsageErrorf("discover takes no arguments"), "add roots with --skill-dir DIR")
			}
			return app.Discover(c.Context, discoverOptions(c))
		},
	}
}

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:     "doctor",
		Category: "inspection",
		Usage:    "explain which skills agents load, and why some do not",
		Description: "Runs discovery and prints a summary that fits a screen: how many skills in how\n" +
			"many roots (active, shadowed, broken), what Claude Code or Codex will not load\n" +
			"and why (one line per reason, with the skills concerned), the broken skills and\n" +
			"the warnings (one line per kind), and, with a store that has targets, what each\n" +
			"target's always-loaded list (name and description of each skill) costs against\n" +
			"its agent's documented budget, in the agent's own unit (Claude Code: about 1% of\n" +
			"the context window, 8,000 characters when unknown, 1,536 per skill; Codex: about\n" +
			"2%, 8,000 characters when unknown), naming the skills shortened first, and how\n" +
			"many references of the form PLUGIN:NAME (a known plugin of the store) in the\n" +
			"exported skills' Markdown a flat target cannot resolve (see docs/guide/agents.md).\n" +
			"Each list stops after a few lines.\n\n" +
			"--verbose adds the details: the roots searched, every skill with its layer and\n" +
			"origin, shadowing, skills with identical bodies, every agent finding and\n" +
			"diagnostic, each target's cost (with approximate tokens) and every unresolved\n" +
			"reference with its skill, file and line. --json carries all of it.\n\n" +
			layersHelp + "\n\n" +
			"Exit codes: 0 every skill loads, 1 at least one skill is broken (an error\n" +
			"diagnostic), 2 usage error.",
		Flags: []cli.Flag{skillDirFlag(), newJSONFlag(), &cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "add every root, skill, finding and reference after the summary"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return app.WithHint(app.UsageErrorf("doctor takes no arguments"), "add roots with --skill-dir DIR")
			}
			return doctor.Run(c.Context, discoverOptions(c))
		},
	}
}

// discoverOptions reads --skill-dir and --json.
func discoverOptions(c *cli.Context) app.DiscoverOptions {
	return app.DiscoverOptions{Global: global(c), Output: output(c), SkillDirs: c.StringSlice("skill-dir")}
}

func promptCommand() *cli.Command {
	return &cli.Command{
		Name:      "prompt",
		Category:  "skills",
		Usage:     "print the <available_skills> XML block for an agent's system prompt",
		ArgsUsage: "[PATH...]",
		Description: "Prints the block the Agent Skills reference tooling (skills-ref to-prompt)\n" +
			"generates: for each skill its name, description and the absolute path of its\n" +
			"SKILL.md, escaped for XML. Each PATH is a skill folder, a SKILL.md or a\n" +
			"folder of skills; a skill there that does not load is an error. Without PATH,\n" +
			"the active discovered skills are listed, one per name (see 'skillstore discover').\n\n" +
			"Exit codes: 0 printed, 1 a PATH is missing or holds a broken skill, 2 usage error.",
		Flags: []cli.Flag{skillDirFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 && len(c.StringSlice("skill-dir")) > 0 {
				return app.WithHint(app.UsageErrorf("--skill-dir and PATH arguments cannot be combined"), "give the skills as PATH arguments, or use --skill-dir alone")
			}
			return app.Prompt(c.Context, app.PromptOptions{DiscoverOptions: discoverOptions(c), Paths: c.Args().Slice()})
		},
	}
}

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Category:  "skills",
		Usage:     "check SKILL.md files against the Agent Skills spec",
		ArgsUsage: "PATH...",
		Description: "PATH is a skill folder, a SKILL.md file, or a tree of skill folders.\n" +
			"Every finding is printed as 'file:line: severity: message', then a summary line.\n\n" +
			"Without --strict, skills are judged as agents load them: every frontmatter key\n" +
			"that Claude Code, Codex, GitHub Copilot, Cursor, Gemini CLI or OpenCode documents\n" +
			"is accepted, and a warning is given only where an agent would skip the skill,\n" +
			"cut it or ignore part of it, naming the agent (a missing name or description, a\n" +
			"description over 1,024 characters, a name that differs from its folder, a key\n" +
			"spelled otherwise than documented). --strict applies the spec and Anthropic's\n" +
			"validators: those become errors, as do keys the spec does not define (those an\n" +
			"agent documents are warnings naming it), XML tags in name or description and\n" +
			"the reserved words \"anthropic\" and \"claude\" in names.\n\n" +
			"Exit codes: 0 no errors (warnings allowed), 1 at least one error or a PATH\n" +
			"that cannot be read, 2 usage error.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "strict", Usage: "apply the Agent Skills spec: what it does not allow is an error, though agents load it"},
			newJSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return app.WithHint(app.UsageErrorf("validate needs at least one PATH"), "give a skill folder, a SKILL.md or a folder of skills, e.g. 'skillstore validate .'")
			}
			return app.Validate(c.Context, app.ValidateOptions{Global: global(c), Output: output(c), Paths: c.Args().Slice(), Strict: c.Bool("strict")})
		},
	}
}

func newCommand() *cli.Command {
	return &cli.Command{
		Name:      "new",
		Category:  "skills",
		Usage:     "create a new skill folder from a short template",
		ArgsUsage: "NAME [DIR]",
		Description: "Writes DIR/SKILL.md (DIR defaults to ./NAME) with the name, a description and a\n" +
			"short body to edit. The result passes 'skillstore validate --strict': NAME must\n" +
			"be 1-64 lowercase letters, digits and single hyphens, without the reserved words\n" +
			"'anthropic' and 'claude'. An existing non-empty DIR is refused. Record the skill\n" +
			"with 'skillstore add DIR' once it says what it should.\n\n" +
			"Exit codes: 0 written, 1 DIR not empty or error, 2 usage error (bad NAME or\n" +
			"description).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "description", Usage: "what the skill does and when to use it (default: a placeholder to edit)"},
		},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 2)
			if err != nil {
				return err
			}
			opts := app.NewSkillOptions{Global: global(c), Name: args[0], Description: c.String("description")}
			if len(args) == 2 {
				opts.Dir = args[1]
			}
			return app.NewSkill(c.Context, opts)
		},
	}
}
