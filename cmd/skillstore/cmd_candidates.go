package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/candidates"
)

// candidates and its subcommands: list, show, diff, checkout, edit,
// mergetool, accept, reject, resolve.

func candidatesCommand() *cli.Command {
	return &cli.Command{
		Name:     "candidates",
		Category: "review",
		Usage:    "review pending updates: list, show, diff, checkout, edit, mergetool, accept, reject, resolve",
		Description: "A candidate is a pending update of a skill: a merge commit with parents\n" +
			"(published version, upstream snapshot) on the branch\n" +
			"refs/heads/candidates/plugins/<plugin>/<skill> (a plugin's skill PLUGIN:SKILL)\n" +
			"or refs/heads/candidates/skills/<skill> (a managed skill). Review it here, or\n" +
			"with plain git: clone the store, commit a resolution on that branch, push it\n" +
			"back, then 'skillstore candidates accept SKILL'.",
		Subcommands: []*cli.Command{
			{
				Name:        "list",
				Usage:       "list pending candidates",
				Description: "Exit codes: 0 success, 1 error, 3 store lock busy.",
				Flags:       []cli.Flag{newJSONFlag()},
				Action: func(c *cli.Context) error {
					if _, err := storeArgs(c, 0, 0); err != nil {
						return err
					}
					return candidates.List(c.Context, candidateOptions(c, ""))
				},
			},
			{
				Name:      "show",
				Usage:     "show a candidate: classification, base/ours/theirs versions, conflicts",
				ArgsUsage: "SKILL",
				Description: "Each conflict left in the candidate's files is shown word by word: for ours and for upstream, the base's words it replaced [-like this-] and its own {+like this+} (red and green on a terminal).\n\n" +
					"With --json --files the JSON also holds every file of the merge's base (the last\n" +
					"accepted upstream), ours (the published version), theirs (the upstream) and the\n" +
					"head (what accept publishes), with its mode, size and text (none for a binary\n" +
					"file): the three versions side by side, as 'skillstore ui' shows them.\n\n" +
					"Exit codes: 0 success, 1 error (no candidate), 2 usage error, 3 store lock busy.",
				Flags: []cli.Flag{newJSONFlag(),
					&cli.BoolFlag{Name: "files", Usage: "with --json, add every file of base, ours, theirs and head with its content"}},
				Action: candidateAction(candidates.Show),
			},
			{
				Name:      "diff",
				Usage:     "show what accepting a candidate would change in the published version",
				ArgsUsage: "SKILL",
				Description: "After the diff, each conflict left in the candidate's files (between git's diff3 markers, which 'candidates edit' opens) is shown word by word: for ours and for upstream, the base's words it replaced [-like this-] and its own {+like this+} (red and green on a terminal).\n\n" +
					"With --json: the changes (as 'skillstore diff --json' prints them) and, for each\n" +
					"target that exports the skill, what the next export does there (hot: agents\n" +
					"re-read SKILL.md; cold: restart the agent).\n\n" +
					"Exit codes: 0 success, 1 error (no candidate), 2 usage error, 3 store lock busy.",
				Flags:  []cli.Flag{newJSONFlag()},
				Action: candidateAction(candidates.Diff),
			},
			candidateCheckoutCommand(),
			candidateEditCommand(),
			candidateMergetoolCommand(),
			{
				Name:      "accept",
				Usage:     "publish a candidate as the skill's next version",
				ArgsUsage: "SKILL",
				Description: "Refused while a conflicted file still holds conflict markers, and when the\n" +
					"published version moved since the candidate was made (run 'skillstore sync'\n" +
					"for a new candidate). Then says what 'skillstore export' will do with the new\n" +
					"version in each target (hot or cold), or, with --export, exports at once.\n\n" +
					"Exit codes: 0 accepted, 1 refused or error (or export failed), 2 usage error,\n" +
					"3 store lock busy.",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "reason", Usage: "why (recorded on the version)"}, newJSONFlag(),
					&cli.BoolFlag{Name: "export", Usage: "export into every target afterwards"},
				},
				Action: candidateAction(candidates.Accept),
			},
			{
				Name:      "reject",
				Usage:     "drop a candidate and keep the published files",
				ArgsUsage: "SKILL",
				Description: "Like dpkg keeping a locally changed file: the published files stay, but the\n" +
					"upstream is recorded as seen (a version with the same files that takes the\n" +
					"upstream snapshot in), so sync does not propose the same update again. The\n" +
					"candidate stays reachable under refs/skillstore/superseded/ (until gc, past its\n" +
					"--grace, once no remote holds the candidate).\n\n" +
					"A merge that pull proposed (mode remote-merge) is rejected the same way: the\n" +
					"local files stay, and the new version joins both published histories, numbered\n" +
					"one past both sides, so the next push fast-forwards the remote.\n\n" +
					"Exit codes: 0 rejected, 1 error, 2 usage error, 3 store lock busy.",
				Flags:  []cli.Flag{&cli.StringFlag{Name: "reason", Usage: "why (recorded on the version)"}, newJSONFlag()},
				Action: candidateAction(candidates.Reject),
			},
			{
				Name:      "resolve",
				Usage:     "make a resolved skill folder the candidate's new head",
				ArgsUsage: "SKILL --from DIR",
				Description: "Commits the folder DIR on top of the candidate branch (the safety check runs\n" +
					"on it). Accept it afterwards.\n\n" +
					"Exit codes: 0 recorded, 1 error, 2 usage error, 3 store lock busy.",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "from", Usage: "the resolved skill folder (required)"},
					&cli.StringFlag{Name: "reason", Usage: "why (recorded on the commit)"},
				},
				Action: oneArg("SKILL", func(c *cli.Context, skill string) error {
					if c.String("from") == "" {
						return app.UsageErrorf("candidates resolve needs --from DIR, the resolved skill folder")
					}
					return candidates.Resolve(c.Context, candidateOptions(c, skill))
				}),
			},
		},
	}
}

// candidateAction is the Action of a candidates command that takes the
// SKILL and the flags candidateOptions reads.
func candidateAction(run func(context.Context, candidates.Options) error) cli.ActionFunc {
	return oneArg("SKILL", func(c *cli.Context, skill string) error {
		return run(c.Context, candidateOptions(c, skill))
	})
}

// candidateOptions reads the flags of the candidates commands (each has
// some of them) for the skill as typed.
func candidateOptions(c *cli.Context, skill string) candidates.Options {
	return candidates.Options{Global: global(c), Output: output(c), Skill: skill,
		Reason: c.String("reason"), Export: c.Bool("export"), From: c.String("from"),
		Force: c.Bool("force"), Tool: c.String("tool"), Restart: c.Bool("restart"), WithFiles: c.Bool("files")}
}

func candidateCheckoutCommand() *cli.Command {
	return &cli.Command{
		Name:      "checkout",
		Usage:     "write a candidate's files, conflict markers included, into a folder",
		ArgsUsage: "SKILL DIR",
		Description: "Writes the files accept would publish (the candidate's head) into DIR, atomically,\n" +
			"as 'skillstore checkout' does (--force replaces only one skill's folder, never a\n" +
			"target's). Edit them, then record them with\n" +
			"'skillstore candidates resolve SKILL --from DIR'.\n\n" +
			"Exit codes: 0 written, 1 no candidate, DIR not empty (without --force) or error,\n" +
			"2 usage error, 3 store lock busy.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "replace the content of a non-empty DIR"}},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 2, 2)
			if err != nil {
				return err
			}
			opts := candidateOptions(c, args[0])
			opts.Dir = args[1]
			return candidates.Checkout(c.Context, opts)
		},
	}
}

func candidateEditCommand() *cli.Command {
	return &cli.Command{
		Name:      "edit",
		Usage:     "resolve a candidate in $VISUAL/$EDITOR and record the resolution",
		ArgsUsage: "SKILL [FILE...]",
		Description: "Writes the candidate into a work folder (STORE/skillstore/work/SKILL), opens the\n" +
			"files that still hold conflict markers (or the FILEs named, or SKILL.md) in\n" +
			"$VISUAL, else $EDITOR, else git's editor ('git var GIT_EDITOR'), and when the\n" +
			"editor exits with no conflict markers left, records the folder as the\n" +
			"candidate's resolution (as 'candidates resolve' does) and removes it. If markers\n" +
			"remain, nothing is recorded and the folder is kept: run edit again to go on\n" +
			"where you left off, or --restart to begin again from the candidate.\n\n" +
			"Exit codes: 0 recorded (or nothing changed), 1 markers remain, the editor failed,\n" +
			"no candidate or error, 2 usage error, 3 store lock busy.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "restart", Usage: "discard an unfinished edit and start again from the candidate"},
			&cli.StringFlag{Name: "reason", Usage: "why (recorded on the resolution)"},
		},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, -1)
			if err != nil {
				return err
			}
			opts := candidateOptions(c, args[0])
			opts.Files = args[1:]
			return candidates.Edit(c.Context, opts)
		},
	}
}

func candidateMergetoolCommand() *cli.Command {
	return &cli.Command{
		Name:      "mergetool",
		Usage:     "resolve a candidate's conflicts with your git mergetool",
		ArgsUsage: "SKILL",
		Description: "Runs the merge tool git is configured with (merge.tool, or --tool) on each\n" +
			"conflicted file that still holds markers: its mergetool.TOOL.cmd runs through sh\n" +
			"with $BASE (the last accepted upstream), $LOCAL (the published version),\n" +
			"$REMOTE (the upstream, or the remote's version) and $MERGED (the file with\n" +
			"markers, in the work folder STORE/skillstore/work/SKILL) set, as git mergetool\n" +
			"does. With mergetool.TOOL.trustExitCode a non-zero exit leaves the file\n" +
			"unresolved; otherwise the markers decide. A tool with no cmd is one of git's\n" +
			"built-in tools (vimdiff, meld, kdiff3, ...): 'git mergetool --tool TOOL' runs it,\n" +
			"on a scratch repository whose index holds the file's three stages. When no\n" +
			"markers are left the folder is recorded as the resolution (as 'candidates\n" +
			"resolve' does).\n\n" +
			"Exit codes: 0 recorded, 1 markers remain, no tool configured, no candidate or\n" +
			"error, 2 usage error, 3 store lock busy.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tool", Usage: "the merge tool to run (default: git config merge.tool)"},
			&cli.BoolFlag{Name: "restart", Usage: "discard an unfinished resolution and start again from the candidate"},
			&cli.StringFlag{Name: "reason", Usage: "why (recorded on the resolution)"},
		},
		Action: func(c *cli.Context) error {
			args, err := storeArgs(c, 1, 1)
			if err != nil {
				return err
			}
			return candidates.Mergetool(c.Context, candidateOptions(c, args[0]))
		},
	}
}
