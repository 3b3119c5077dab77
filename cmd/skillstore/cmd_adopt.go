package main

import (
	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app/adopt"
)

// adoptCommand is 'adopt': an existing installation taken over.
func adoptCommand() *cli.Command {
	return &cli.Command{
		Name:     "adopt",
		Category: "skills",
		Usage:    "take an existing installation over: agents' skill folders, npx skills and gh skill installs",
		Description: "Reads, when present: the agents' skill folders (~/.claude/skills, ~/.agents/skills,\n" +
			"~/.codex/skills, ~/.cursor/skills, ...; see 'target add --help'; the project's under\n" +
			"--project), following\n" +
			"symlinked skill folders inside the home (or project); ~/.agents/.skill-lock.json and\n" +
			"the project's skills-lock.json ('npx skills'); ~/.claude/plugins/installed_plugins.json\n" +
			"and known_marketplaces.json (Claude Code's installed plugins: each installed skill\n" +
			"becomes PLUGIN:SKILL of the plugin from its marketplace's repository, on the commit\n" +
			"Claude Code installed, gitCommitSha). A skill whose lock file names a\n" +
			"source (github, git URL, local) becomes a skill of the plugin whose tree holds its\n" +
			"skillPath (a plugin of that repository the store has reused, whatever it selects;\n" +
			"else that plugin added) on the upstream commit it was installed from: the lock\n" +
			"file's skillFolderHash, else the closest commit; a local edit is kept on top (a\n" +
			"candidate when the plugin mirrors the skill already). Other skills are imported as\n" +
			"managed skills. Identical copies\n" +
			"in several agent folders are one skill. Nothing in the agents' folders is changed;\n" +
			"every entry left out is listed with its reason, and the 'target add' commands to\n" +
			"run next are printed.\n\n" +
			"The project's skills-lock.json (version 1) records no git tree but computedHash,\n" +
			"npx skills' SHA-256 of the folder's files: an entry is matched to its folder by\n" +
			"name, by the folder name npx makes of it ('Agent Docs' -> agent-docs), else by\n" +
			"that digest, and the skill is linked on the upstream commit whose folder has it\n" +
			"(exact even when the copy was edited since). ref is the ref followed; sourceType\n" +
			"gitlab is GitLab's group/repo ($SKILLSTORE_GITLAB_URL replaces https://gitlab.com);\n" +
			"well-known and node_modules sources are no git repositories: their skills come in\n" +
			"as managed skills, said. The global lock's pluginName picks the marketplace plugin.\n" +
			"A skill 'gh skill install' wrote (metadata github-repo, github-ref, github-tree-sha,\n" +
			"github-path, github-pinned in its SKILL.md) joins the plugin of that repository at\n" +
			"the pinned ref (else github-ref), on the commit whose folder is github-tree-sha;\n" +
			"gh's keys are taken out of SKILL.md first and are no local edit (a SKILL.md that\n" +
			"then means what upstream's does is upstream's, byte for byte). --dry-run lists\n" +
			"each record it read.\n\n" +
			"A source on this machine (sourceType local, a file:// URL) that the project's\n" +
			"lock file names is not followed (the skill is taken in as managed) unless\n" +
			"--allow-local names it or a folder above it; the records in your home are your\n" +
			"own word: their local sources are followed, each listed (in --dry-run too).\n" +
			"A source the source policy refuses refuses its skill (not even taken in as\n" +
			"managed). The project's skillstore-lock.json is skillstore's own lock: adopt\n" +
			"never reads it ('skillstore install' restores it); after adopting, 'skillstore\n" +
			"lock' writes it.\n\n" +
			sourcePolicyHelp + "\n\n" +
			"Exit codes: 0 all taken over (stray files, listed, do not count); 1 some entries\n" +
			"failed or were skipped (the rest were taken over);\n" +
			"2 usage; 3 store busy.",
		Flags: append(addFlags(), dryRunFlag("print what would happen, skill by skill, writing nothing"),
			&cli.StringFlag{Name: "home", Usage: "the home folder to read (default $HOME)"},
			&cli.StringFlag{Name: "project", Usage: "also read this project's agent folders (.claude/skills, .agents/skills, ...) and skills-lock.json"},
			&cli.StringSliceFlag{Name: "allow-local", Usage: "follow the project's local sources at or below DIR or file:// URL (repeatable)"}),
		Action: func(c *cli.Context) error {
			if _, err := storeArgs(c, 0, 0); err != nil {
				return err
			}
			sopts, err := addOptions(c)
			if err != nil {
				return err
			}
			return adopt.Run(c.Context, adopt.Options{Global: global(c), Output: output(c), Home: c.String("home"),
				Project: c.String("project"), AllowLocal: c.StringSlice("allow-local"), Store: sopts, DryRun: c.Bool("dry-run")})
		},
	}
}
