package main

import (
	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/store"
)

// plugin and its subcommands: add, list, show, skills, set, trust, link,
// pause, resume, disable, enable, adopt, rm.

func pluginCommand() *cli.Command {
	return &cli.Command{
		Name:     "plugin",
		Category: "plugins",
		Usage:    "vendor upstream plugins: add, list, show, skills, set, trust, link, pause, resume, disable, enable, adopt, rm",
		Description: "A plugin is an upstream source of skills: a local folder or a git repository.\n" +
			"Its layout is read from any agent's marketplace (.claude-plugin/, .agents/plugins/,\n" +
			".cursor-plugin/ or .github/plugin/marketplace.json) or plugin manifest\n" +
			"(.claude-plugin/, .codex-plugin/ or .cursor-plugin/plugin.json, plugin.json,\n" +
			"gemini-extension.json), else skills/ (with hidden category folders such as\n" +
			"skills/.curated/<name>), a SKILL.md at the top (one skill) or <name>/SKILL.md\n" +
			"folders (a flat repository). 'skillstore sync' brings its updates in.\n\n" +
			sourcePolicyHelp,
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "add a plugin and mirror its skills",
				ArgsUsage: "SOURCE[@RANGE][#FOLDER/][#PLUGIN]",
				Description: "SOURCE is a local folder (its files as they are on disk), a local git\n" +
					"repository, any URL git can fetch (https://, ssh://, git@host:path, file://),\n" +
					"GitHub shorthand owner/repo, or a GitHub address\n" +
					"https://github.com/owner/repo/tree/REF/PATH (REF and PATH become --ref and --path;\n" +
					"a REF holding '/' is the longest branch or tag of the repository that starts\n" +
					"REF/PATH). A local path that exists wins over shorthand: write ./owner/repo for a\n" +
					"folder. $SKILLSTORE_GITHUB_URL replaces https://github.com in every GitHub address.\n" +
					"SOURCE@RANGE (owner/repo@^1.2) or --track tags follows releases: each sync takes\n" +
					"the newest tag named as a version (v1.3.0 or 1.3.0) in RANGE, as npm reads one\n" +
					"(^1.2, ~1.2.3, >=1.2 <2, 1.x, 1.2.3, * for any; pre-releases only when RANGE names\n" +
					"one), so a commit without a new tag brings nothing and a new tag is an update\n" +
					"like any other (fast-forward, merge or candidate); check says 'RELEASE available'.\n" +
					"Sources that are no git repository are fetched over http(s) and versioned as one:\n" +
					"each download that changes the files is a new commit of the source, synced in the\n" +
					"same four cases. An archive URL (.tar.gz, .tgz, .zip; --sha256 HEX makes the\n" +
					"download match), a SKILL.md URL (one skill), a site's skills index\n" +
					"(https://SITE/.well-known/skills/index.json, or /.well-known/agent-skills/), and\n" +
					"npm:PACKAGE[@RANGE] (the package's tarball from the npm registry,\n" +
					"$SKILLSTORE_NPM_REGISTRY replacing https://registry.npmjs.org; its package.json\n" +
					"\"skills\" or \"agentskills\" list, else its skills/ folder).\n" +
					"After '#', a part holding '/' is a folder inside SOURCE (like --path; plugins/x,\n" +
					"or tools/ for a top-level folder) and a part without one a plugin.\n" +
					"The layouts recognised are listed in docs/guide/install.md; a folder\n" +
					"matching none is refused with the list. Every skill of a catalog's categories\n" +
					"(.curated, .system, .experimental) is added; two with one name are refused.\n" +
					"A marketplace adds every plugin it lists, or only PLUGIN with SOURCE#PLUGIN.\n" +
					"Each skill's upstream tree becomes a snapshot on refs/upstream/<plugin>/<skill>\n" +
					"and the skill's first version. A skill name the store already has (a managed\n" +
					"skill or another plugin's) is an ownership conflict: nothing is written, except\n" +
					"that the skills of a plugin removed with 'plugin rm' are linked back to it when\n" +
					"it is added again under the same id (history kept, the upstream their merge\n" +
					"base again). --skill NAME (repeatable; a glob such as 'doc*', or '!NAME' to\n" +
					"leave one out) mirrors only those skills, and sync keeps to that selection;\n" +
					"the patterns are read in order, the last that matches a skill deciding, and a\n" +
					"first '!NAME' starts from every skill ('!' means the same in target add/set\n" +
					"--only). A NAME that matches no skill is an error listing the skills there are.\n" +
					"The smallest bad part is left out, never the plugin: a file a store never\n" +
					"holds (a symlink that leaves its folder, is absolute or loops; a FIFO; a\n" +
					"submodule; a file over 2 MiB) is left out of its skill; a skill that fails\n" +
					"validation, holds two names that are one on macOS and Windows, or is rated\n" +
					"above --allow-risk (default high) is left out whole; a plugin's other files\n" +
					"past 1,000 (counted per plugin; manifests, commands, agents, hooks and servers\n" +
					"kept first) are left out, counted. Each is named on stderr\n" +
					"with what takes it in ('plugin trust PLUGIN:SKILL' for a risk); the rest goes\n" +
					"in, and the exit code is 1. A symlink that stays in its folder is kept as git\n" +
					"keeps it. --strict makes each plugin all or nothing. Skill folders of the\n" +
					"source that no plugin holds are named in one note with the SOURCE#FOLDER/\n" +
					"that takes them in.\n\n" +
					"A marketplace's entries in other repositories (github, url, git-subdir) are\n" +
					"fetched, at their sha, else their ref. Each plugin is added on its own: one that\n" +
					"fails (unreachable, missing ref, bad manifest, conflict) is reported and nothing\n" +
					"is written for it; plugins without skills (commands, agents, hooks or servers\n" +
					"only) are added with those parts, summed up in one note; --skills-only leaves\n" +
					"them out. Adding the\n" +
					"marketplace again adds its new plugins, follows its \"renames\" (the plugin keeps\n" +
					"its history) and sources it moved ($SKILLSTORE_GITHUB_URL replaces https://github.com).\n" +
					"An entry whose url is on this machine (file://, a path) is refused: the\n" +
					"marketplace's author, not you, named it. --allow-local DIR|URL (repeatable)\n" +
					"takes the local entries at or below what it names.\n\n" +
					"SKILL.md warnings of the validation policy are printed one line per kind, with\n" +
					"a count and the plugins concerned; --verbose prints each.\n\n" +
					"Exit codes: 0 added; 1 error (bad manifest, ownership conflict, fetch failure,\n" +
					"a part left out; for a marketplace: some plugin failed, the others were added,\n" +
					"--json lists each); 2 usage error; 3 store lock busy.",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "id", Usage: "plugin id in the store (default: the manifest's name)"},
					&cli.StringFlag{Name: "ref", Usage: "branch, tag or commit of a git source (a commit pins it); default: the branch its HEAD points at (a detached HEAD needs --ref)"},
					&cli.StringFlag{Name: "path", Usage: "the folder inside SOURCE that holds the plugin or marketplace (e.g. plugins/x)"},
					&cli.StringFlag{Name: "sha256", Usage: "the sha256 (64 hex digits) an archive source must have; a download with another is refused"},
					&cli.StringFlag{Name: "track", Usage: "what a git source follows: branch (its --ref, else HEAD) or tags (the newest release tag, in SOURCE@RANGE when given)"},
					&cli.BoolFlag{Name: "review", Usage: "always review this plugin's updates: fast-forwards become candidates"},
					&cli.StringSliceFlag{Name: "skill", Usage: "mirror only the skills NAME matches (repeatable; globs, !NAME leaves out)"},
					&cli.StringSliceFlag{Name: "allow-local", Usage: "let marketplace entries use repositories on this machine at or below DIR or file:// URL (repeatable)"},
					&cli.BoolFlag{Name: "skills-only", Usage: "leave out a marketplace's plugins that hold no skills (added by default with their other parts)"},
					&cli.StringFlag{Name: "dialect", Usage: "read the source through one agent's manifests only: " + pluginfmt.JoinDialects(pluginfmt.Dialects()) + " (default: every one, each plugin folder once)"},
					newJSONFlag(), verboseFlag(), dryRunFlag("fetch and report what would be added, writing nothing"),
				}, intakeFlags()...),
				Action: runPluginAdd,
			},
			{
				Name:  "list",
				Usage: "list plugins and the derived status of their skills",
				Description: "Shows each plugin's id, state (enabled, paused, disabled), source, ref and\n" +
					"last fetched commit, and each skill's status derived from refs: synced,\n" +
					"update available, candidate pending or conflicted ('modified' marks local edits).\n\n" +
					"Exit codes: 0 success, 1 error, 3 store lock busy.",
				Flags: []cli.Flag{newJSONFlag()},
				Action: func(c *cli.Context) error {
					if _, err := storeArgs(c, 0, 0); err != nil {
						return err
					}
					return app.ShowPlugins(c.Context, pluginOptions(c, ""))
				},
			},
			{
				Name:        "show",
				Usage:       "show one plugin",
				ArgsUsage:   "PLUGIN",
				Description: "Exit codes: 0 success, 1 error (unknown plugin), 2 usage error, 3 store lock busy.",
				Flags:       []cli.Flag{newJSONFlag()},
				Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
					return app.ShowPlugins(c.Context, pluginOptions(c, id))
				}),
			},
			pluginSkillsCommand(),
			pluginSetCommand(),
			pluginTrustCommand(),
			pluginLinkCommand(),
			{
				Name:        "pause",
				Usage:       "make sync skip a plugin",
				ArgsUsage:   "PLUGIN",
				Description: "Exit codes: 0 paused (or already paused), 1 error (unknown plugin), 2 usage error, 3 store lock busy.",
				Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
					return app.PausePlugin(c.Context, pluginOptions(c, id))
				}),
			},
			{
				Name:      "resume",
				Usage:     "make sync take a paused plugin again, and sync it",
				ArgsUsage: "PLUGIN",
				Description: "Resumes the plugin and syncs it at once, as 'skillstore sync PLUGIN' does\n" +
					"(capture, sync, export), unless --no-sync.\n\n" +
					"Exit codes: 0 resumed (or already running) and synced; 1 error (unknown plugin,\n" +
					"or the sync failed); 2 usage error; 3 store lock busy; 4 synced, candidates wait\n" +
					"for review.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "no-sync", Usage: "only resume; the next sync brings the updates in"},
				},
				Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
					opts := pluginOptions(c, id)
					opts.NoSync = c.Bool("no-sync")
					return app.ResumePlugin(c.Context, opts)
				}),
			},
			{
				Name:      "disable",
				Usage:     "stop syncing a plugin and disable its skills (history kept)",
				ArgsUsage: "PLUGIN",
				Description: "Disables every skill the plugin owns (they stay in the store with their\n" +
					"history but are not exported) and makes sync skip the plugin. The flag\n" +
					"--disable-linked-skills is required as confirmation. 'plugin enable' undoes it.\n\n" +
					"Exit codes: 0 success, 1 error, 2 usage error (missing confirmation), 3 store lock busy.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "disable-linked-skills", Usage: "confirm that the plugin's skills are disabled too"},
					&cli.StringFlag{Name: "reason", Usage: "why (recorded in the state log)"},
				},
				Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
					if !c.Bool("disable-linked-skills") {
						return app.WithHint(app.UsageErrorf("disabling plugin %s disables its skills: confirm with --disable-linked-skills", id),
							"to only stop updates, run 'skillstore plugin pause "+id+"'")
					}
					opts := pluginOptions(c, id)
					opts.Reason = c.String("reason")
					return app.DisablePlugin(c.Context, opts)
				}),
			},
			{
				Name:      "enable",
				Usage:     "re-enable a disabled plugin and its skills",
				ArgsUsage: "PLUGIN",
				Description: "Re-activates the skills that 'plugin disable' deactivated; a skill disabled\n" +
					"on its own ('skillstore disable SKILL') stays disabled.\n\n" +
					"Exit codes: 0 enabled (or already enabled), 1 error, 2 usage error, 3 store lock busy.",
				Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
					return app.EnablePlugin(c.Context, pluginOptions(c, id))
				}),
			},
			{
				Name:      "adopt",
				Usage:     "make a plugin's skill a managed skill that sync no longer touches",
				ArgsUsage: "PLUGIN SKILL",
				Description: "The skill keeps its history; its pending candidate, if any, is dropped (kept\n" +
					"reachable under refs/skillstore/superseded/).\n\n" +
					"Exit codes: 0 success, 1 error, 2 usage error, 3 store lock busy.",
				Action: func(c *cli.Context) error {
					if c.NArg() != 2 {
						return app.UsageErrorf("plugin adopt needs PLUGIN and SKILL")
					}
					id, skill, err := pluginSkillArgs(c)
					if err != nil {
						return err
					}
					opts := pluginOptions(c, id)
					opts.Skill = skill
					return app.AdoptPluginSkill(c.Context, opts)
				},
			},
			{
				Name:      "rm",
				Usage:     "forget a plugin; its skills stay as managed skills",
				ArgsUsage: "PLUGIN",
				Description: "Removes the plugin's record, source and upstream refs and pending candidates.\n" +
					"Its skills and their history stay, as managed skills that remember the plugin:\n" +
					"adding it again under the same id (at another ref or URL too) links them back.\n\n" +
					"Exit codes: 0 success, 1 error, 2 usage error, 3 store lock busy.",
				Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
					return app.RemovePlugin(c.Context, pluginOptions(c, id))
				}),
			},
		},
	}
}

// pluginOptions are the options of a command on the plugin id.
func pluginOptions(c *cli.Context, id string) app.PluginOptions {
	return app.PluginOptions{Global: global(c), Output: output(c), ID: id}
}

func runPluginAdd(c *cli.Context) error {
	if c.NArg() != 1 {
		return app.WithHint(app.UsageErrorf("plugin add needs exactly one SOURCE argument"), "run 'skillstore plugin add --help' for usage")
	}
	intake, err := intakeOptions(c)
	if err != nil {
		return err
	}
	return app.AddPlugin(c.Context, app.PluginAddOptions{Global: global(c), Output: output(c),
		Source: c.Args().First(), Ref: c.String("ref"), Path: c.String("path"), ID: c.String("id"), Track: c.String("track"), SHA256: c.String("sha256"),
		Review: c.Bool("review"), Skills: c.StringSlice("skill"), AllowLocal: c.StringSlice("allow-local"),
		SkillsOnly: c.Bool("skills-only"), Dialect: c.String("dialect"), Intake: intake, DryRun: c.Bool("dry-run")})
}

// pluginSkillArgs reads the PLUGIN SKILL arguments of 'plugin adopt' and
// 'plugin link', where SKILL is the skill's own name; PLUGIN:SKILL is
// accepted for it too, when PLUGIN is the plugin named first.
func pluginSkillArgs(c *cli.Context) (id, skill string, err error) {
	id, skill = c.Args().Get(0), c.Args().Get(1)
	if plugin, short := store.SplitName(skill); plugin != "" {
		if plugin != id {
			return "", "", app.UsageErrorf("%s names plugin %s's skill, not one of plugin %s", skill, plugin, id)
		}
		skill = short
	}
	return id, skill, nil
}

// pluginSkillsCommand is 'plugin skills': a plugin's selection of skills.
func pluginSkillsCommand() *cli.Command {
	return &cli.Command{
		Name:      "skills",
		Usage:     "show a plugin's mirrored and available skills, or change which it mirrors",
		ArgsUsage: "PLUGIN",
		Description: "Without flags, lists the skills the plugin mirrors and those its upstream has\n" +
			"(as of the last sync: nothing is fetched), with its selection ('all' unless\n" +
			"'plugin add --skill' or this command narrowed it).\n\n" +
			"--add NAME selects skills (a name or a glob such as 'doc*', repeatable): the next\n" +
			"sync of the plugin mirrors them. --remove NAME leaves them out: a skill the plugin\n" +
			"mirrored becomes a managed skill at once, as 'plugin rm' leaves them (history\n" +
			"kept, sync no longer touches it); selecting it again links it back to the plugin.\n" +
			"--all selects every skill again. A pattern that matches no skill of the plugin or\n" +
			"its upstream is an error listing the skills there are.\n\n" +
			"Exit codes: 0 success (or the selection was already so), 1 error, 2 usage error,\n" +
			"3 store lock busy.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "add", Usage: "select the skills NAME matches (repeatable)"},
			&cli.StringSliceFlag{Name: "remove", Usage: "leave out the skills NAME matches; mirrored ones become managed (repeatable)"},
			&cli.BoolFlag{Name: "all", Usage: "select every skill (then --add/--remove apply)"},
			newJSONFlag(),
		},
		Action: oneArg("PLUGIN", func(c *cli.Context, id string) error {
			return app.PluginSkills(c.Context, app.PluginSkillsOptions{Global: global(c), Output: output(c), ID: id,
				Add: c.StringSlice("add"), Remove: c.StringSlice("remove"), All: c.Bool("all")})
		}),
	}
}

// pluginSetCommand is 'plugin set': move a plugin's pin.
func pluginSetCommand() *cli.Command {
	return &cli.Command{
		Name:      "set",
		Usage:     "change a plugin's ref or URL (a new tag, a fork); the next sync follows it",
		ArgsUsage: "PLUGIN",
		Description: "--ref REF pins a git plugin to another branch, tag or commit ('' for the remote's\n" +
			"HEAD); --url URL moves it to another repository or folder (a fork), keeping its\n" +
			"ref unless --ref is given too, and its '#PLUGIN' unless URL names one. Nothing is\n" +
			"fetched now: the next sync reads the new source and classifies each skill against\n" +
			"what was accepted, as any upstream update (local edits meet it as a three-way\n" +
			"candidate), and an unreachable URL or missing ref is reported by that sync. The\n" +
			"change is recorded in the store's state history. A --ref on a folder source is\n" +
			"refused.\n\n" +
			"Exit codes: 0 set (or already so), 1 error, 2 usage error, 3 store lock busy.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "ref", Usage: "branch, tag or commit of the git source ('' for HEAD)"},
			&cli.StringFlag{Name: "url", Usage: "new source: a git URL, a local repository or a folder"},
			newJSONFlag(),
		},
		Action: oneArg("PLUGIN", runPluginSet),
	}
}

func runPluginSet(c *cli.Context, id string) error {
	var url, ref *string
	if c.IsSet("url") {
		u := c.String("url")
		url = &u
	}
	if c.IsSet("ref") {
		r := c.String("ref")
		ref = &r
	}
	if url == nil && ref == nil {
		return app.UsageErrorf("plugin set needs --ref REF or --url URL")
	}
	return app.SetPlugin(c.Context, app.SetPluginOptions{Global: global(c), Output: output(c), ID: id, URL: url, Ref: ref})
}

// pluginTrustCommand approves a plugin whose source came from a remote, or
// accepts the findings of one skill's upstream tree.
func pluginTrustCommand() *cli.Command {
	return &cli.Command{
		Name:      "trust",
		Usage:     "let sync fetch a plugin that came from a remote, or take in a skill whose risk it left out",
		ArgsUsage: "PLUGIN | PLUGIN:SKILL",
		Description: "PLUGIN: a plugin record (or a changed source) that 'skillstore pull' takes from a\n" +
			"remote is not fetched by sync until a person approves it on this machine: a\n" +
			"teammate's server must not make this machine fetch a URL with its credentials.\n" +
			"Approval is recorded locally (STORE/skillstore/untrusted-plugins.json lists what\n" +
			"waits) and never pushed. Plugins added here with 'plugin add' are trusted already.\n" +
			"A plugin whose source is a local folder cannot be approved: add the folder yourself.\n\n" +
			"PLUGIN:SKILL: accepts the safety findings of the skill as its upstream holds it now\n" +
			"(the commit the last sync fetched, or the folder on disk), which sync left out for\n" +
			"a risk above --allow-risk. The findings are printed; the acceptance names that\n" +
			"upstream tree, so the next sync takes it in (an update is published, not held for\n" +
			"review), and any change upstream asks again. PLUGIN:_plugin accepts the plugin's\n" +
			"parts. Recorded locally (STORE/skillstore/accepted-risks.json), never pushed.\n\n" +
			"Exit codes: 0 approved or accepted, 1 error (unknown plugin or skill, nothing to\n" +
			"approve or accept, folder source, invalid skill), 2 usage error, 3 store lock busy.",
		Action: oneArg("PLUGIN", func(c *cli.Context, arg string) error {
			return app.TrustPlugin(c.Context, pluginOptions(c, arg))
		}),
	}
}

// pluginLinkCommand is 'plugin link': a managed skill becomes a plugin's.
func pluginLinkCommand() *cli.Command {
	return &cli.Command{
		Name:      "link",
		Usage:     "make a managed skill the plugin's skill of the same name, history kept",
		ArgsUsage: "PLUGIN SKILL",
		Description: "For a skill imported as a copy of a plugin's skill (by hand, or installed by\n" +
			"another tool). The plugin's upstream history, as last fetched, is searched (at most\n" +
			"1,000 commits back along first parents) for the commit whose folder of the skill\n" +
			"equals the skill's published files; failing that, the closest one (fewest\n" +
			"differing lines), which is said. That commit becomes the skill's upstream base,\n" +
			"recorded by a new version with the same files; what the skill changed against it\n" +
			"is kept as a local edit. The next sync then publishes upstream's later changes to\n" +
			"an unedited skill, and turns them plus a local edit into a three-way candidate.\n" +
			"The plugin's selection is extended to take the skill if it left it out.\n" +
			"The plugin's upstream must have the skill. A folder source has no history: the\n" +
			"folder's files as they are now are the base.\n\n" +
			"Exit codes: 0 success (or the skill was the plugin's already), 1 error, 2 usage\n" +
			"error, 3 store lock busy.",
		Flags: []cli.Flag{newJSONFlag(), dryRunFlag("report the upstream commit that would be chosen, writing nothing")},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return app.UsageErrorf("plugin link needs PLUGIN and SKILL")
			}
			id, skill, err := pluginSkillArgs(c)
			if err != nil {
				return err
			}
			return app.LinkSkill(c.Context, app.LinkOptions{Global: global(c), Output: output(c), ID: id, Skill: skill, DryRun: c.Bool("dry-run")})
		},
	}
}
