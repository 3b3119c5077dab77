package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/remotes"
)

// The remotes' commands: remote (add, list, rm), clone, push, pull.

func remoteCommand() *cli.Command {
	return &cli.Command{
		Name:     "remote",
		Category: "remotes",
		Usage:    "manage the git servers this store is shared through: add, list, rm",
		Description: "A remote is a git repository (on GitHub, GitLab, Gitea, a bare repository\n" +
			"over ssh or git daemon, or a local path) that holds a copy of the store. Remotes\n" +
			"are kept in the store repository's git config, so 'git remote -v' shows them;\n" +
			"they are never written into the state that push sends.",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "record a remote",
				ArgsUsage: "NAME URL",
				Description: "URL is file://, git://, http(s)://, ssh:// or user@host:path, or a local path.\n" +
					"Credentials are read from where git keeps them (credential helpers, the ssh\n" +
					"agent); a password in the URL is kept in the git config only and never printed.\n\n" +
					"Exit codes: 0 added, 1 error (name taken, bad URL), 2 usage error, 3 store lock busy.",
				Action: func(c *cli.Context) error {
					args, err := remoteArgs(c, 2, 2)
					if err != nil {
						return err
					}
					return remotes.AddRemote(c.Context, remotes.Options{Global: global(c), Name: args[0], URL: args[1]})
				},
			},
			{
				Name:        "list",
				Usage:       "list the remotes (passwords hidden)",
				Description: "Exit codes: 0 success, 1 error, 3 store lock busy.",
				Flags:       []cli.Flag{newJSONFlag()},
				Action: func(c *cli.Context) error {
					if _, err := remoteArgs(c, 0, 0); err != nil {
						return err
					}
					return remotes.ListRemotes(c.Context, remotes.Options{Global: global(c), Output: output(c)})
				},
			},
			{
				Name:      "rm",
				Usage:     "forget a remote and what this store last saw of it",
				ArgsUsage: "NAME",
				Description: "Nothing on the remote changes, and no skill or candidate of this store does.\n\n" +
					"Exit codes: 0 removed, 1 error (no such remote), 2 usage error, 3 store lock busy.",
				Action: func(c *cli.Context) error {
					args, err := remoteArgs(c, 1, 1)
					if err != nil {
						return err
					}
					return remotes.RemoveRemote(c.Context, remotes.Options{Global: global(c), Name: args[0]})
				},
			},
		},
	}
}

func cloneCommand() *cli.Command {
	return &cli.Command{
		Name:      "clone",
		Category:  "remotes",
		Usage:     "create a store from a remote",
		ArgsUsage: "URL [DIR]",
		Description: "Creates a new store at DIR (default: --store, $SKILLSTORE_DIR or the XDG\n" +
			"default) with URL as its remote 'origin', pulls everything (each fetched tree\n" +
			"passes the same safety checks as local input) and verifies the result. On any\n" +
			"failure nothing is left behind.\n\n" +
			"Versions the safety check rates high wait for review as in pull.\n\n" +
			"Exit codes: 0 cloned, 1 error (unreachable, refused by the safety checks, DIR\n" +
			"not empty), 2 usage error.",
		Flags:  []cli.Flag{allowRiskFlag(), maxNewSkillsFlag(), newJSONFlag()},
		Action: runClone,
	}
}

func pushCommand() *cli.Command {
	return &cli.Command{
		Name:      "push",
		Category:  "remotes",
		Usage:     "send published skills, upstream snapshots, candidates and state to a remote",
		ArgsUsage: "[REMOTE]",
		Description: "Sends refs/heads/skills/*, refs/upstream/*, refs/heads/candidates/*,\n" +
			"refs/skillstore/superseded/* and refs/skillstore/state to REMOTE (default: the\n" +
			"only remote, or 'origin'). Published skills and the state only fast-forward: if\n" +
			"the remote has versions this store lacks, the whole push is refused and nothing\n" +
			"is sent (run 'skillstore pull' first). Nothing on the remote is overwritten,\n" +
			"except a candidate this store superseded, accepted or rejected, and only while\n" +
			"the remote still holds what this store last saw of it (force-with-lease); a\n" +
			"candidate a reviewer changed on the server is never replaced. The update is\n" +
			"atomic where the server supports it. Quiet when there is nothing to send.\n\n" +
			"Exit codes: 0 pushed or up to date, 1 refused or error, 2 usage error, 3 store\n" +
			"lock busy.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "show what would be sent, send nothing"},
			newJSONFlag(),
		},
		Action: runPush,
	}
}

func pullCommand() *cli.Command {
	return &cli.Command{
		Name:      "pull",
		Category:  "remotes",
		Usage:     "fetch a remote and integrate its published skills, candidates and state",
		ArgsUsage: "[REMOTE]",
		Description: "Fetches REMOTE (default: the only remote, or 'origin') and checks every fetched\n" +
			"tree with the store's safety checks (symlinks, '..' paths, huge files, risky\n" +
			"content, ref names outside skillstore's namespaces): a remote that fails them\n" +
			"is refused and nothing is written. Then, per skill, with the merge-base logic\n" +
			"of sync:\n" +
			"  new / fast-forward    the remote is ahead: its versions are taken\n" +
			"  local-ahead           this store is ahead: 'skillstore push' publishes it\n" +
			"  joined                both published the same files: one version joins them\n" +
			"  merge-candidate       both published different edits: their three-way merge\n" +
			"  conflicted-candidate  the same, with conflicts; either waits for review on\n" +
			"                        refs/heads/candidates/skills/<skill> (a plugin's skill:\n" +
			"                        candidates/plugins/<plugin>/<skill>)\n" +
			"Nothing published is overwritten. The merged version, once accepted, is numbered\n" +
			"one past the higher of both sides' numbers. Candidates a reviewer extended on\n" +
			"the server fast-forward. The state is merged record by record; conflicting\n" +
			"records keep this store's and are reported; targets stay this machine's.\n" +
			"A version the safety check here rates high is not published: the versions\n" +
			"before it are, the rest waits as a candidate for review (held-for-review), as\n" +
			"sync holds a risky upstream update. A pull that would create more than\n" +
			"--max-new-skills skills is refused before anything is fetched. The fetch runs\n" +
			"without the store lock, within --fetch-timeout, so list and show answer\n" +
			"meanwhile.\n" +
			"With --export the published skills are then exported to every target.\n\n" +
			sourcePolicyHelp + "\n\n" +
			"Exit codes: 0 done, nothing waits for review; 1 refused or error; 2 usage\n" +
			"error; 3 store lock busy; 4 done, candidates wait for review or state records\n" +
			"conflicted.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "export", Usage: "export into every target afterwards"},
			&cli.BoolFlag{Name: "skill-aware", Usage: "merge Markdown of diverged skills with the skill-aware rules (see merge-file --help); the candidate lists each resolution"},
			allowRiskFlag(),
			maxNewSkillsFlag(),
			newJSONFlag(),
			dryRunFlag("pull into a scratch copy of the store and report what would change, writing nothing here (with --export: what export would do)"),
		},
		Action: runPull,
	}
}

func runClone(c *cli.Context) error {
	args, err := remoteArgs(c, 1, 2)
	if err != nil {
		return err
	}
	risk, err := parseAllowRisk(c)
	if err != nil {
		return err
	}
	maxNew, err := parseMaxNewSkills(c)
	if err != nil {
		return err
	}
	dir := ""
	if len(args) == 2 {
		if dir, err = filepath.Abs(args[1]); err != nil {
			return err
		}
	}
	return remotes.Clone(c.Context, remotes.CloneOptions{Options: remotes.Options{Global: global(c), Output: output(c), URL: args[0]},
		Dir: dir, AllowRisk: risk, MaxNewSkills: maxNew})
}

func runPush(c *cli.Context) error {
	args, err := remoteArgs(c, 0, 1)
	if err != nil {
		return err
	}
	return remotes.Push(c.Context, remotes.PushOptions{Options: remoteOptions(c, args), DryRun: c.Bool("dry-run")})
}

func runPull(c *cli.Context) error {
	args, err := remoteArgs(c, 0, 1)
	if err != nil {
		return err
	}
	risk, err := parseAllowRisk(c)
	if err != nil {
		return err
	}
	maxNew, err := parseMaxNewSkills(c)
	if err != nil {
		return err
	}
	return remotes.Pull(c.Context, remotes.PullOptions{Options: remoteOptions(c, args), Export: c.Bool("export"),
		SkillAware: c.Bool("skill-aware"), AllowRisk: risk, MaxNewSkills: maxNew, DryRun: c.Bool("dry-run")})
}

// remoteOptions are push's and pull's: the remote named, if any.
func remoteOptions(c *cli.Context, args []string) remotes.Options {
	opts := remotes.Options{Global: global(c), Output: output(c)}
	if len(args) == 1 {
		opts.Name = args[0]
	}
	return opts
}

// remoteArgs returns the arguments after checking their number, and lets
// the command's flags follow them ("pull origin --export"), which
// urfave/cli leaves among the arguments.
func remoteArgs(c *cli.Context, min, max int) ([]string, error) {
	name := commandPath(c)
	help := fmt.Sprintf("run 'skillstore %s --help' for usage", name)
	var args []string
	raw := c.Args().Slice()
	for i := 0; i < len(raw); i++ {
		a := raw[i]
		if a == "--" {
			args = append(args, raw[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			args = append(args, a)
			continue
		}
		flag, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var def cli.Flag
		for _, f := range c.Command.Flags {
			if slices.Contains(f.Names(), flag) {
				def = f
			}
		}
		if def == nil {
			return nil, app.WithHint(app.UsageErrorf("flag provided but not defined: -%s", flag), help)
		}
		if _, isBool := def.(*cli.BoolFlag); isBool && !hasVal {
			val = "true"
		} else if !hasVal {
			if i+1 >= len(raw) {
				return nil, app.WithHint(app.UsageErrorf("flag needs an argument: -%s", flag), help)
			}
			i++
			val = raw[i]
		}
		if err := c.Set(flag, val); err != nil {
			return nil, app.WithHint(app.UsageErrorf("invalid value %q for flag -%s: %v", val, flag, err), help)
		}
	}
	if len(args) < min || len(args) > max {
		if c.Command.ArgsUsage == "" {
			return nil, app.WithHint(app.UsageErrorf("%s takes no arguments", name), help)
		}
		return nil, app.WithHint(app.UsageErrorf("%s takes %s", name, c.Command.ArgsUsage), help)
	}
	return args, nil
}

// commandPath is the command's name with its parents ("remote add").
func commandPath(c *cli.Context) string {
	var names []string
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" && ctx.Command.Name != c.App.Name && (len(names) == 0 || names[0] != ctx.Command.Name) {
			names = append([]string{ctx.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}
