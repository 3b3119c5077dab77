package main

import (
	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
)

// sync and check: sync's pipeline (app.Sync), and the same on a dry run.

func syncCommand() *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Category:  "plugins",
		Usage:     "bring upstream plugin updates in (safe to run from cron)",
		ArgsUsage: "[PLUGIN...]",
		Description: "For each enabled, unpaused plugin (or those named): fetch its source, snapshot\n" +
			"each skill's upstream tree (refs/upstream/<plugin>/<skill>), and classify it against\n" +
			"the published version with the merge-base (the last accepted upstream):\n" +
			"  unchanged        nothing to do\n" +
			"  already-applied  the published files already match upstream; the base advances\n" +
			"  fast-forward     no local edits: the update is published (a candidate with\n" +
			"                   --review, the plugin's review policy, or a high-risk finding)\n" +
			"  three-way        both changed: the merge becomes a candidate branch\n" +
			"                   (refs/heads/candidates/plugins/<plugin>/<skill>) for\n" +
			"                   'skillstore candidates'\n" +
			"A newer upstream supersedes a pending candidate. Skills removed upstream are\n" +
			"reported, never deleted. Sync waits up to --lock-timeout for the store lock.\n" +
			"A plugin's other files (manifest, hooks, commands, agents, MCP/LSP config...)\n" +
			"are synced the same way as the unit PLUGIN:_plugin; hook and server changes are\n" +
			"risk findings, and every change to them is cold (docs/guide/plugins.md).\n\n" +
			"Git plugins are fetched before the store lock is taken, several at once\n" +
			"(--fetch-jobs, a global flag; by default 8 per ssh host, 24 per git:// host,\n" +
			"4 local repositories, 64 in all), each within --fetch-timeout (connecting and\n" +
			"listing refs, then every silence of the server); one that fails is reported\n" +
			"and the others are synced.\n\n" +
			"With targets (see 'skillstore target'), sync first records skills edited in\n" +
			"the target folders as versions (like 'skillstore capture'), so an update never\n" +
			"overwrites them, and at the end exports what it published (like 'skillstore export').\n" +
			"An edit whose published version moved meanwhile becomes a three-way candidate.\n" +
			"A skill folder capture cannot read (a FIFO or socket in it, a file in its place)\n" +
			"or a target whose bookkeeping folder is refused is named on stderr and left\n" +
			"alone; the rest of sync goes on, and it exits 1.\n\n" +
			"Output: nothing when nothing changed; one line per change otherwise; --json for a\n" +
			"full report. Progress is shown only on a terminal. A skill export leaves alone\n" +
			"(a foreign folder, one edited in a target) is reported by the first sync that\n" +
			"meets it, not by every one. File lists are summarised, and the validation\n" +
			"policy's warnings about new upstream SKILL.md files are printed one line per\n" +
			"kind with a count; --verbose lists them all. A sync with nothing to write reads\n" +
			"the store under its shared lock only, so commands reading it never wait for it;\n" +
			"the exclusive lock is taken only to write what the sync found.\n\n" +
			"A part that cannot be taken in is left out, not the plugin: a file a store never\n" +
			"holds (a symlink out of its folder, a FIFO, a file over 2 MiB) is left out of its\n" +
			"skill, and a skill that fails validation or is rated above --allow-risk (default\n" +
			"high) is left out, or held at its published version. Each is named on stderr\n" +
			"with what takes it in, by the first sync that meets it for that upstream content;\n" +
			"a later sync takes it in once fixed upstream. 'plugin trust PLUGIN:SKILL' accepts\n" +
			"a risky skill's findings. --strict makes each plugin all or nothing.\n\n" +
			"A plugin whose source the source policy refuses is not fetched and fails (see\n" +
			"'skillstore help plugin'); the others sync.\n\n" +
			"Exit codes: 0 done, nothing waits for review; 1 a plugin or skill failed, or a part\n" +
			"was left out (the others were still synced); 2 usage error; 3 store lock busy\n" +
			"(another skillstore command holds it); 4 candidates (or merged target edits) wait\n" +
			"for review, whatever else failed (the failures are printed all the same, and\n" +
			"--json carries both); 130 interrupted (SIGINT; 143 for SIGTERM).",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "review", Usage: "turn fast-forwards into candidates for this run"},
			&cli.BoolFlag{Name: "skill-aware", Usage: "merge Markdown in three-way updates with the skill-aware rules (see merge-file --help); the candidate lists each resolution"},
			newJSONFlag(), verboseFlag(), dryRunFlag("report what sync would do, as 'skillstore check' does, writing nothing"),
		}, intakeFlags()...),
		Action: func(c *cli.Context) error {
			opts, err := syncOptions(c)
			if err != nil {
				return err
			}
			return app.Sync(c.Context, opts)
		},
	}
}

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Category:  "plugins",
		Usage:     "show what sync would do, writing nothing",
		ArgsUsage: "[PLUGIN...]",
		Description: "Runs sync's own pipeline on a dry run: capture of the skills edited in the\n" +
			"targets, fetch and classification of every enabled, unpaused plugin (or those\n" +
			"named), export. Every step makes its decisions with sync's code and keeps what\n" +
			"it would write in memory, so each later step sees it as sync would; nothing is\n" +
			"written to the store (refs, state, objects, caches) or to any target. Prints\n" +
			"under the names sync prints (PLUGIN:SKILL), per skill, what sync would do:\n" +
			"  capture          an edit made in a target would be recorded first (or merged\n" +
			"                   into a candidate, when the published version also moved)\n" +
			"  publish          a fast-forward would be published (v1 -> v2)\n" +
			"  candidate        an update would wait for review (three-way clean, or a\n" +
			"                   fast-forward under --review, the plugin's policy or a risk)\n" +
			"  conflict         a three-way merge would leave conflicts for review\n" +
			"  new              a new upstream skill would be added\n" +
			"  removed          the upstream no longer has the skill (it is kept)\n" +
			"  already-applied  the published files already match; the base would advance\n" +
			"then what export would write into each target. 'skillstore sync --dry-run' is\n" +
			"the same. --json says whether anything is pending (\"pending\").\n\n" +
			"Exit codes: the ones the sync that follows would give: 0 nothing would wait\n" +
			"for review; 1 a plugin, skill, capture or export would fail; 2 usage error;\n" +
			"3 store lock busy; 4 candidates would wait for review, whatever else would fail;\n" +
			"130 interrupted.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "review", Usage: "as sync --review: fast-forwards would become candidates"},
			&cli.BoolFlag{Name: "skill-aware", Usage: "as sync --skill-aware"},
			newJSONFlag(), verboseFlag(),
		}, intakeFlags()...),
		Action: func(c *cli.Context) error {
			opts, err := syncOptions(c)
			if err != nil {
				return err
			}
			return app.Check(c.Context, opts)
		},
	}
}

// syncOptions reads sync's and check's flags; the arguments are the
// plugins to sync (all when none).
func syncOptions(c *cli.Context) (app.SyncOptions, error) {
	intake, err := intakeOptions(c)
	if err != nil {
		return app.SyncOptions{}, err
	}
	return app.SyncOptions{Global: global(c), Output: output(c), Plugins: c.Args().Slice(),
		Review: c.Bool("review"), SkillAware: c.Bool("skill-aware"), Intake: intake, DryRun: c.Bool("dry-run")}, nil
}
