package main

import (
	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
)

// A project's lock: lock (write it) and install (restore it).

// lockFileHelp is the lock file's format, as both commands' help gives it
// (the package projectlock documents the same).
const lockFileHelp = "The lock file, skillstore-lock.json at the project's root, is JSON written\n" +
	"sorted, so the same store and targets give the same bytes:\n" +
	"  version   1, the format's version (a newer one is refused)\n" +
	"  remote    the team remote {name, url} holding the versions only stores have\n" +
	"            (a password in its URL is never written)\n" +
	"  plugins   each plugin owning a locked skill: id, kind (git, folder, archive,\n" +
	"            skill-md, well-known or npm), url, ref, tags (the release range it\n" +
	"            follows), sha256 (an archive's digest), path, selector (the plugin of a\n" +
	"            marketplace), commit (the source's commit its skills were read from; a\n" +
	"            source that is no git repository is fetched as it is now, and a tree\n" +
	"            it no longer holds is a difference), select (its skill selection)\n" +
	"  skills    each skill a target holds: name (PLUGIN:NAME or NAME), tree (the git\n" +
	"            tree id of the version: what install restores), version (its number\n" +
	"            in the store that wrote the lock), local (no upstream has it: a local\n" +
	"            edit or a managed skill, taken from the team remote)\n" +
	"  targets   the project's targets: name, dir (relative to the project's root),\n" +
	"            select and except (their --only and --except patterns), skills\n" +
	"            (what they hold)\n\n" +
	"An 'npx skills' skills-lock.json in the same project is another installer's\n" +
	"record: 'skillstore adopt --project DIR' takes those skills over, then 'skillstore\n" +
	"lock' writes skillstore-lock.json. lock and install never read or write\n" +
	"skills-lock.json, and adopt never reads skillstore-lock.json."

func lockCommand() *cli.Command {
	return &cli.Command{
		Name:     "lock",
		Category: "targets",
		Usage:    "write the project's lock file: its targets' skills at their versions",
		Description: "Writes skillstore-lock.json into the project holding the working directory (the\n" +
			"top of its git work tree; --project names another): the project's targets\n" +
			"('skillstore target add --project AGENT'), the latest published version of every\n" +
			"active skill each selects, the plugins owning them at the commit the store last\n" +
			"fetched, and the team remote (the store's only remote, else origin; --remote names\n" +
			"one). Commit the file: 'skillstore install' in a clone restores it. The project's\n" +
			"targets are then held to it and exported: export and sync write the locked\n" +
			"versions there until lock runs again (status shows newer ones as outdated);\n" +
			"other targets follow the store as before. A local version\n" +
			"(a managed skill or a local edit) that a clone cannot get (no team remote, or not\n" +
			"pushed to it) is named in a warning, and so is a version the project holds that\n" +
			"install took from a team remote for it alone (this store does not publish it, so\n" +
			"the lock moves it to the store's version or leaves it out).\n\n" +
			lockFileHelp + "\n\n" +
			"Exit codes: 0 written (or unchanged), 1 error (no target in the project), 2 usage,\n" +
			"3 store busy.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "project", Usage: "the project's root `DIR` (default: the git work tree holding the working directory)"},
			&cli.StringFlag{Name: "remote", Usage: "the team remote `NAME` to record"},
			newJSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return app.UsageErrorf("lock takes no arguments")
			}
			return app.Lock(c.Context, app.LockOptions{Global: global(c), Output: output(c), Project: c.String("project"), Remote: c.String("remote")})
		},
	}
}

func installCommand() *cli.Command {
	return &cli.Command{
		Name:     "install",
		Category: "targets",
		Usage:    "restore the project's lock file into its targets (--frozen for CI)",
		Description: "Reads skillstore-lock.json of the project holding the working directory (or\n" +
			"--project) and makes the project's targets hold exactly its versions, fetching\n" +
			"what the store lacks. The lock is a request from whoever wrote the project, not\n" +
			"an authority: install takes exactly the versions it names, and gives them to the\n" +
			"project's targets only.\n\n" +
			"Each plugin the store does not have is added at the lock's commit (through plugin\n" +
			"add, so the source policy and the safety checks apply), then set to follow the\n" +
			"lock's ref again, so 'skillstore sync' updates it as usual; its skills go to this\n" +
			"project's targets only, never to your other targets (~/.claude/skills and the\n" +
			"like), until you add it yourself with 'skillstore plugin add'. A version no\n" +
			"upstream has (a local edit, a managed skill) is fetched from the team remote the\n" +
			"lock names: that skill's history alone, checked as pull checks it, kept for the\n" +
			"project's targets and published nowhere; the rest of the remote is never fetched,\n" +
			"and the remote is not recorded (push never sends to it) unless --remember-remote\n" +
			"records it. A version that is not there must be pushed first, which the error\n" +
			"says. A plugin whose upstream moved since the lock is reported and installed at\n" +
			"the locked commit. The targets are recorded (or updated), held to the lock's\n" +
			"versions, exported, and each folder is compared with the lock tree by tree; the\n" +
			"report says which target receives which skills.\n\n" +
			"The lock comes from outside (a cloned project): it is read with a size bound,\n" +
			"every name, id, path and URL is checked, and a bad entry is refused alone with\n" +
			"its file and line while the rest is installed. A target folder that leaves the\n" +
			"project (.., a symbolic link out) is refused; a source on this machine is used\n" +
			"only when --allow-local names it. Everything is fetched before anything is\n" +
			"written.\n\n" +
			"On a machine with no store yet (a CI runner), install first creates an empty\n" +
			"one where --store, SKILLSTORE_DIR or the default place say, and says so in one\n" +
			"line on stderr; no 'skillstore init' is needed.\n\n" +
			"--frozen is for CI: all or nothing. The install is first rehearsed from what was\n" +
			"fetched, writing nothing; if any part of the lock cannot be restored exactly, or a\n" +
			"folder would not hold the lock's version after the export (edited, missing),\n" +
			"nothing at all is written (no plugin, remote, version, target or folder; a store\n" +
			"created for the install stays, empty) and each difference is named.\n\n" +
			lockFileHelp + "\n\n" +
			sourcePolicyHelp + "\n\n" +
			"Exit codes: 0 installed as locked; 1 some part was not (each is named), or with\n" +
			"--frozen anything differs; 2 usage; 3 store busy.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "project", Usage: "the project's root `DIR` (default: the git work tree holding the working directory)"},
			&cli.BoolFlag{Name: "frozen", Usage: "fail, writing nothing, unless every tree matches the lock exactly (for CI)"},
			&cli.StringSliceFlag{Name: "allow-local", Usage: "let the lock use sources on this machine at or below `DIR` or file:// URL (repeatable)"},
			&cli.BoolFlag{Name: "remember-remote", Usage: "record the lock's team remote as a remote of this store (for your own push and pull)"},
			newJSONFlag(), verboseFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return app.UsageErrorf("install takes no arguments")
			}
			return app.Install(c.Context, app.InstallOptions{Global: global(c), Output: output(c), Project: c.String("project"),
				Frozen: c.Bool("frozen"), AllowLocal: c.StringSlice("allow-local"), RememberRemote: c.Bool("remember-remote")})
		},
	}
}
