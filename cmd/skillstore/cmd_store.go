package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/serve"
	"github.com/skillstore/skillstore/store"
)

// The store's own commands: init, add, import, list, search, show, log,
// cat, diff, checkout, rollback, disable, enable, rm, verify, gc.

func initCommand() *cli.Command {
	return &cli.Command{
		Name:     "init",
		Category: "skills",
		Usage:    "create a store (a bare git repository)",
		Description: "init creates a store at --store, $SKILLSTORE_DIR or $XDG_DATA_HOME/skillstore.\n" +
			"The store is a bare git repository that plain git can read.\n\n" +
			"Exit codes: 0 created; 1 a store already exists there or it could not be created.",
		Action: func(c *cli.Context) error {
			if _, err := storeArgs(c, 0, 0); err != nil {
				return err
			}
			return app.Init(c.Context, global(c))
		},
	}
}

func addCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Category:  "skills",
		Usage:     "record skill folders as new versions",
		ArgsUsage: "PATH...",
		Description: "add validates each skill folder (lenient rules; --strict for strict), runs the safety\n" +
			"check, and records it as a new version of its skill when its files differ from the\n" +
			"latest version (otherwise it says there is nothing new). Several folders are recorded\n" +
			"together or not at all.\n\n" +
			"Safety: symlinks, paths leaving the folder, special files, files over 2 MiB and more\n" +
			"than 1000 files are rejected. Scripts, curl|sh pipelines, decoded payloads run by a\n" +
			"shell, credentials sent over the network, shell-profile persistence, reverse shells,\n" +
			"permission bypasses, hidden instructions and 'ignore previous instructions' are\n" +
			"flagged with a risk level recorded on the version, one line per finding (see\n" +
			"'skillstore show' and 'skillstore audit'). Findings above\n" +
			"--allow-risk (default high) refuse the version.\n\n" +
			"The validation policy's warnings are printed after the versions, one line per\n" +
			"kind with a count (a lone one as FILE:LINE: warning: ...); --verbose prints each.\n\n" +
			addNamesHelp + "\n\n" + addExitCodes,
		Flags: append(addFlags(), append(nameFlags(), dryRunFlag("report what would be recorded, writing nothing"))...),
		Action: func(c *cli.Context) error {
			paths, err := storeArgs(c, 1, -1)
			if err != nil {
				return err
			}
			for _, p := range paths {
				if p == "" {
					return app.UsageErrorf("add: an empty folder name: give the skill folder to record")
				}
			}
			opts, err := addCommandOptions(c, paths)
			if err != nil {
				return err
			}
			return app.Add(c.Context, opts)
		},
	}
}

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Category:  "skills",
		Usage:     "record every skill folder found under a folder",
		ArgsUsage: "ROOT",
		Description: "import finds every folder holding a SKILL.md under ROOT with the walk 'discover'\n" +
			"uses (8 folders deep, not inside another skill, skipping .git, node_modules, build\n" +
			"outputs, virtualenvs, caches and hidden folders other than .agents, .claude, .codex,\n" +
			".curated, .system and .experimental; symlinks followed only inside ROOT; in a folder\n" +
			"holding a plugin or marketplace manifest, the skill folders it names, as 'plugin\n" +
			"add' reads them) and records\n" +
			"each like 'add', in one pass and one store transaction. A skill found in several\n" +
			"places is taken once, from its canonical copy: a repository before .agents/skills\n" +
			"before an agent folder (.claude/skills) before the rest; identical copies are\n" +
			"reported as warnings, differing ones as failures. A bad folder is reported and\n" +
			"skipped; the others are recorded. The validation policy's warnings are printed\n" +
			"one line per kind with a count; --verbose prints each. " + addNamesHelp + "\n\n" +
			"Exit codes: 0 all recorded or unchanged; 1 some folders failed (the rest were\n" +
			"recorded) or none was found; 2 usage; 3 store busy.",
		Flags: append(addFlags(), append(nameFlags(), dryRunFlag("report what would be recorded, writing nothing"))...),
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 1)
			if err != nil {
				return err
			}
			opts, err := addCommandOptions(c, args)
			if err != nil {
				return err
			}
			return app.Import(c.Context, opts)
		},
	}
}

// addCommandOptions reads add's and import's flags.
func addCommandOptions(c *cli.Context, paths []string) (app.AddOptions, error) {
	sopts, err := addOptions(c)
	if err != nil {
		return app.AddOptions{}, err
	}
	return app.AddOptions{Global: global(c), Output: output(c), Paths: paths, Store: sopts,
		As: c.String("as"), Into: c.StringSlice("into"), DryRun: c.Bool("dry-run")}, nil
}

func listCommand() *cli.Command {
	return &cli.Command{
		Name:     "list",
		Category: "skills",
		Usage:    "list the skills in the store",
		Description: "list prints each skill's name, latest version, status (active, disabled, removed),\n" +
			"source (managed or the plugin it comes from) and description. Removed skills are\n" +
			"shown only with --all.\n\nExit codes: 0 ok; 1 error; 3 store busy.",
		Flags: []cli.Flag{newJSONFlag(), &cli.BoolFlag{Name: "all", Usage: "include removed skills"}},
		Action: func(c *cli.Context) error {
			if _, err := storeArgs(c, 0, 0); err != nil {
				return err
			}
			return app.List(c.Context, app.ListOptions{Global: global(c), Output: output(c), All: c.Bool("all")})
		},
	}
}

func searchCommand() *cli.Command {
	return &cli.Command{
		Name:      "search",
		Category:  "skills",
		Usage:     "find skills by name and description",
		ArgsUsage: "TERM",
		Description: "search ranks the skills (not removed ones) whose name or description contains every\n" +
			"word of TERM: exact names first, then name prefixes, names containing TERM, then\n" +
			"description matches.\n\nExit codes: 0 matches found; 1 no match or error; 3 store busy.",
		Flags: []cli.Flag{newJSONFlag()},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, -1)
			if err != nil {
				return err
			}
			return app.Search(c.Context, app.SearchOptions{Global: global(c), Output: output(c), Term: strings.Join(args, " ")})
		},
	}
}

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Category:  "skills",
		Usage:     "show a version: metadata, frontmatter, files, provenance, safety findings",
		ArgsUsage: "NAME[@VERSION]",
		Description: "show prints a version's metadata (version, commit, date, actor, reason, source,\n" +
			"merge mode), its status, its safety risk and findings, its SKILL.md frontmatter,\n" +
			"and its files with modes and sizes. " + versionNames + "\n\n" +
			"Exit codes: 0 ok; 1 unknown skill or version, or error; 3 store busy.",
		Flags: []cli.Flag{newJSONFlag()},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 1)
			if err != nil {
				return err
			}
			return app.Show(c.Context, skillOptions(c, args[0]))
		},
	}
}

func logCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Category:  "skills",
		Usage:     "list every version of a skill, which agent loaded which version, or the sync runs",
		ArgsUsage: "NAME | --loads [PATTERN] | --syncs",
		Description: "log prints every version of a skill, newest first: version, date, commit, actor,\n" +
			"merge mode, risk and reason. The same story is in plain\n" +
			"'git log refs/heads/skills/NAME' through the commit trailers.\n\n" +
			"With --loads it prints instead the loads of 'skillstore mcp', oldest first: time,\n" +
			"the client (the agent's name and version from the MCP handshake), skill, version,\n" +
			"commit and the call that loaded it; PATTERN (a glob on qualified names) narrows\n" +
			"them to some skills.\n\n" +
			"With --syncs it prints the runs of 'skillstore sync', newest first: time, outcome\n" +
			"(ok, review: candidates wait, failed: a part failed and the rest went on, error:\n" +
			"the run stopped), plugins, the skills by classification, candidates waiting and\n" +
			"skill folders exported; --json adds the skills each run published or made a\n" +
			"candidate for, and every error. Each run appends one line to\n" +
			"STORE/skillstore/" + app.SyncsFileName + " (machine-local, never pushed; rotated at 1 MiB).\n\n" +
			"Exit codes: 0 ok; 1 unknown skill or error; 3 store busy.",
		Flags: []cli.Flag{newJSONFlag(), &cli.BoolFlag{Name: "loads", Usage: "list the skill versions agents loaded through 'skillstore mcp'"},
			&cli.BoolFlag{Name: "syncs", Usage: "list the runs of 'skillstore sync' and how each ended"}},
		Action: func(c *cli.Context) error {
			if c.Bool("syncs") {
				if c.Bool("loads") {
					return app.UsageErrorf("log: --loads and --syncs cannot be used together")
				}
				if _, err := storeArgs(c, 0, 0); err != nil {
					return err
				}
				return app.Syncs(c.Context, app.SyncsOptions{Global: global(c), Output: output(c)})
			}
			if c.Bool("loads") {
				args, err := storeArgs(c, 0, 1)
				if err != nil {
					return err
				}
				opts := serve.LoadsOptions{Global: global(c), Output: output(c)}
				if len(args) == 1 {
					opts.Skill = args[0]
				}
				return serve.Loads(c.Context, opts)
			}
			args, err := storeArgs(c, 1, 1)
			if err != nil {
				return err
			}
			return app.Log(c.Context, skillOptions(c, args[0]))
		},
	}
}

func catCommand() *cli.Command {
	return &cli.Command{
		Name:      "cat",
		Category:  "skills",
		Usage:     "print a file of a version (SKILL.md by default)",
		ArgsUsage: "NAME[@VERSION] [FILE]",
		Description: "cat writes the content of FILE (a path inside the skill, default SKILL.md) in the\n" +
			"version to stdout; with --body, without its YAML frontmatter (a file without one is\n" +
			"printed whole). " + versionNames + "\n\n" +
			"Exit codes: 0 ok; 1 unknown skill, version or file, or a frontmatter never closed;\n" +
			"3 store busy.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "body", Usage: "print the Markdown body only, without the frontmatter"}},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 2)
			if err != nil {
				return err
			}
			file := ""
			if len(args) == 2 {
				if file = args[1]; file == "" {
					return app.UsageErrorf("cat: the file path is empty (leave it out for SKILL.md)")
				}
			}
			return app.Cat(c.Context, app.CatOptions{SkillOptions: skillOptions(c, args[0]), File: file, Body: c.Bool("body")})
		},
	}
}

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Category:  "skills",
		Usage:     "show what changed between two versions, or a version and a folder",
		ArgsUsage: "NAME[@A] [@B|NAME@B|DIR]",
		Description: "diff prints a unified diff (line-based) in git's format, with added, removed and\n" +
			"renamed files and executable-bit changes:\n" +
			"  diff NAME            what the latest version changed\n" +
			"  diff NAME@A          from version A to the latest\n" +
			"  diff NAME@A @B       from version A to version B\n" +
			"  diff NAME@A NAME@B   the same, both named in full as with git diff A B\n" +
			"                       (OTHER@B compares with another skill's version)\n" +
			"  diff NAME[@A] DIR    from the version to the folder DIR on disk\n" +
			versionNames + "\n" +
			"A second argument that is both a folder and a version (a folder named pdf@v2)\n" +
			"is refused as ambiguous: write ./pdf@v2 for the folder, @v2 for the version.\n\n" +
			"--stat prints one line per changed file with the lines added and deleted, as\n" +
			"git diff --stat does. On a terminal the diff is coloured (never with NO_COLOR).\n\n" +
			"Exit codes: 0 ok (with or without differences; with --exit-code: no differences);\n" +
			"1 differences found (--exit-code), unknown skill or version, or error; 3 store busy.",
		Flags: []cli.Flag{
			newJSONFlag(),
			&cli.BoolFlag{Name: "exit-code", Usage: "exit 1 when there are differences, 0 when there are none (as git diff --exit-code)"},
			&cli.BoolFlag{Name: "stat", Usage: "print a summary of the lines added and deleted per file instead of the diff"},
		},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 2)
			if err != nil {
				return err
			}
			to := ""
			if len(args) == 2 {
				to = args[1]
			}
			return app.Diff(c.Context, app.DiffOptions{SkillOptions: skillOptions(c, args[0]), To: to, Stat: c.Bool("stat"), ExitCode: c.Bool("exit-code")})
		},
	}
}

func checkoutCommand() *cli.Command {
	return &cli.Command{
		Name:      "checkout",
		Category:  "skills",
		Usage:     "write a version's files into a folder",
		ArgsUsage: "NAME[@VERSION] DIR",
		Description: "checkout writes the version into DIR atomically: the files go to a temporary folder\n" +
			"next to DIR, which then takes DIR's place in one rename, so DIR is never half\n" +
			"written. A non-empty DIR is refused unless --force, which swaps it atomically and\n" +
			"deletes its old content; --force replaces only a folder holding one skill's files\n" +
			"(its SKILL.md, no other skill, no .git or .skillstore), and a target's folder or\n" +
			"one holding a target is always refused. " + versionNames + "\n\n" +
			"Exit codes: 0 written; 1 DIR not empty (without --force), unknown version, or error;\n" +
			"3 store busy.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "replace the content of a non-empty DIR"}},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 2, 2)
			if err != nil {
				return err
			}
			return app.Checkout(c.Context, app.CheckoutOptions{SkillOptions: skillOptions(c, args[0]), Dir: args[1], Force: c.Bool("force")})
		},
	}
}

func rollbackCommand() *cli.Command {
	return &cli.Command{
		Name:      "rollback",
		Category:  "skills",
		Usage:     "record a new version with the files of an earlier one",
		ArgsUsage: "NAME VERSION | NAME@VERSION",
		Description: "rollback records a new version of NAME whose files are those of VERSION (vN or a\n" +
			"commit prefix), named as two arguments or as NAME@VERSION. History is never rewritten: the rollback is itself a version, with\n" +
			"Merge-Mode: rollback.\n\n" +
			"Exit codes: 0 recorded; 1 unknown skill or version, already at that content, or\n" +
			"error; 3 store busy.",
		Flags: []cli.Flag{reasonFlag(), newJSONFlag(), dryRunFlag("report the version that would be recorded, writing nothing")},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 2)
			if err != nil {
				return err
			}
			name, version, err := rollbackArgs(args)
			if err != nil {
				return err
			}
			return app.Rollback(c.Context, app.RollbackOptions{SkillOptions: skillOptions(c, name), Version: version,
				Reason: c.String("reason"), DryRun: c.Bool("dry-run")})
		},
	}
}

func statusChangeCommand(name string, status store.Status) *cli.Command {
	usage, desc := "stop exporting a skill to agents (history and files are kept)", "disable marks a skill disabled: it stays in the store but is not exported to agents."
	if status == store.StatusActive {
		usage, desc = "make a disabled or removed skill active again", "enable makes a disabled or removed skill active again."
	}
	return &cli.Command{
		Name:      name,
		Category:  "skills",
		Usage:     usage,
		ArgsUsage: "NAME",
		Description: desc + " The change is a commit on\n" +
			"refs/skillstore/state (the audit log).\n\n" +
			"Exit codes: 0 done (or already so); 1 unknown skill or error; 3 store busy.",
		Flags: []cli.Flag{reasonFlag()},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 1)
			if err != nil {
				return err
			}
			return app.SetStatus(c.Context, app.StatusChangeOptions{SkillOptions: skillOptions(c, args[0]), Status: status, Reason: c.String("reason")})
		},
	}
}

func rmCommand() *cli.Command {
	return &cli.Command{
		Name:      "rm",
		Category:  "skills",
		Usage:     "remove a skill (hidden and not exported; history kept)",
		ArgsUsage: "NAME",
		Description: "rm marks a skill removed: it is no longer listed (except with list --all) nor\n" +
			"exported, and its history stays ('skillstore enable NAME' brings it back).\n" +
			"rm --purge --yes deletes its refs so gc can delete its history for good; --purge\n" +
			"without --yes is refused.\n\n" +
			"Exit codes: 0 done; 1 unknown skill, --purge without --yes, or error; 3 store busy.",
		Flags: []cli.Flag{
			reasonFlag(),
			&cli.BoolFlag{Name: "purge", Usage: "delete the skill's history (needs --yes)"},
			&cli.BoolFlag{Name: "yes", Usage: "confirm --purge"},
		},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 1)
			if err != nil {
				return err
			}
			name := args[0]
			if c.Bool("purge") && !c.Bool("yes") {
				return app.WithHint(fmt.Errorf("rm --purge deletes every version of %s for good; not done without confirmation", name),
					fmt.Sprintf("rerun as 'skillstore rm --purge --yes %s' to confirm, or drop --purge to only remove it", name))
			}
			return app.Remove(c.Context, app.StatusChangeOptions{SkillOptions: skillOptions(c, name), Reason: c.String("reason"), Purge: c.Bool("purge")})
		},
	}
}

// rollbackArgs reads "NAME VERSION" or "NAME@VERSION", the form every other
// command takes.
func rollbackArgs(args []string) (name, spec string, err error) {
	if len(args) == 2 {
		return args[0], args[1], nil
	}
	name, spec, ok := strings.Cut(args[0], "@")
	if !ok || name == "" || spec == "" {
		return "", "", app.WithHint(app.UsageErrorf("rollback needs the version to roll back to: NAME@VERSION or NAME VERSION"),
			"run 'skillstore log "+strings.TrimSuffix(args[0], "@")+"' to see its versions")
	}
	return name, spec, nil
}

// skillOptions are the options of a command on the skill (or version)
// name.
func skillOptions(c *cli.Context, name string) app.SkillOptions {
	return app.SkillOptions{Global: global(c), Output: output(c), Name: name}
}

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:     "verify",
		Category: "inspection",
		Usage:    "check every invariant of the store",
		Description: "verify checks that every ref file holds an object id and reaches a complete commit,\n" +
			"that every version's tree holds a SKILL.md that parses and only regular files,\n" +
			"that version numbers count down by one to v1 along each skill's history, and that\n" +
			"every state record parses, that every tree passes git fsck --strict's rules (no duplicate\n" +
			"names, no .git in any spelling, sorted), and that every object read hashes to its id\n" +
			"(--quick checks that blobs are present without reading them). It prints each problem\n" +
			"with the ref or file concerned. SKILL.md files are judged by the validation policy add,\n" +
			"import, plugin add, sync, pull and clone apply (lenient): its warnings do not fail verify,\n" +
			"and are printed one line per kind with a count and the first skills concerned;\n" +
			"--verbose prints each.\n\n" +
			"Cost: verify reads each object the refs reach once, however many refs share it (the\n" +
			"plugins of one marketplace share its repository, a plugin's source shares its skills'\n" +
			"trees), as git fsck --strict does, with one reader per core; --json counts them\n" +
			"(objects_read). git fsck also reads unreachable objects and checks packs' checksums;\n" +
			"verify adds the store's own checks above, of which parsing every version's SKILL.md is\n" +
			"most of the extra work.\n\n" +
			"Exit codes: 0 the store is sound (warnings or not); 1 problems found (listed) or error; 3 store busy.",
		Flags: []cli.Flag{newJSONFlag(), verboseFlag(), &cli.BoolFlag{Name: "quick", Usage: "check that blobs are present instead of reading and re-hashing them"}},
		Action: func(c *cli.Context) error {
			if _, err := storeArgs(c, 0, 0); err != nil {
				return err
			}
			return app.Verify(c.Context, app.VerifyOptions{Global: global(c), Output: output(c), Quick: c.Bool("quick")})
		},
	}
}

func gcCommand() *cli.Command {
	return &cli.Command{
		Name:     "gc",
		Category: "inspection",
		Usage:    "pack objects and refs, prune unreachable objects past a grace period",
		Description: "gc writes every reachable object into one delta-compressed pack, packs the refs,\n" +
			"and deletes loose objects and old packs. Unreachable objects (from purges or\n" +
			"crashed writers) are deleted only once older than --grace. Deltas already in\n" +
			"packs are copied, not recomputed. Other commands, readers and writers, run while\n" +
			"gc writes its pack: it takes the store's exclusive lock only to switch to it.\n" +
			"First it drops the superseded refs (refs/skillstore/superseded/) that tell\n" +
			"nothing any more, once their candidate is older than --grace: those of a\n" +
			"candidate no remote holds (by the last pull or push), that is not the skill's\n" +
			"candidate, and that holds no commit a person made on top of it.\n\n" +
			"Between gcs, as git's gc --auto: each write merges the packs it added into one,\n" +
			"and past git's gc.auto (6,700 loose objects) or gc.autoPackLimit (50 packs)\n" +
			"also merges the loose objects and the smallest packs, copying them without a\n" +
			"delta search. 'git -C STORE config gc.auto 0' turns that off.\n\n" +
			"Exit codes: 0 done; 1 error; 3 store busy.",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "grace", Usage: "keep unreachable objects younger than this", Value: store.DefaultGCGrace},
			newJSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if _, err := storeArgs(c, 0, 0); err != nil {
				return err
			}
			grace := c.Duration("grace")
			if grace < 0 {
				return app.UsageErrorf("--grace %s is negative: give how long to keep unreachable objects, e.g. 24h", grace)
			}
			return app.GC(c.Context, app.GCOptions{Global: global(c), Output: output(c), Grace: grace})
		},
	}
}

const versionNames = "A version is NAME (the latest), NAME@vN, or NAME@<commit prefix> (4+ hex digits).\n" +
	"NAME is PLUGIN:NAME for a plugin's skill (or its short name when no other skill has\n" +
	"it), NAME or :NAME for a managed skill."

const addExitCodes = "Exit codes: 0 every folder recorded or unchanged; 1 a folder is invalid, rejected by\n" +
	"the safety check or refused for its risk (nothing is written); 2 usage; 3 store busy."

// addNamesHelp is how add and import pick the skill a folder becomes a
// version of (store.AddOptions.As, Into; store/add_name.go).
const addNamesHelp = "Names: a folder is a version of the skill its SKILL.md names. When only\n" +
	"plugins' skills have that name (PLUGIN:NAME), the folder is recorded onto one only if\n" +
	"its files are those of one of its versions; otherwise it is refused with the choices:\n" +
	"--as NEWNAME records it as the managed skill NEWNAME (SKILL.md's name set to it),\n" +
	"--into PLUGIN:NAME as that skill's next version (an edited copy of it; repeatable,\n" +
	"each folder going onto the --into skill of its name). A managed skill of the name\n" +
	"takes the folder as its next version. --as takes one folder."
