package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

func reasonFlag() cli.Flag {
	return &cli.StringFlag{Name: "reason", Usage: "why (recorded in the history)"}
}

func storeRollbackCommand() *cli.Command {
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
			s, err := openStoreForWrite(c)
			if err != nil {
				return err
			}
			name, spec, err := rollbackArgs(args)
			if err != nil {
				return err
			}
			if name, err = resolveNameArg(c, s, name); err != nil {
				return err
			}
			v, err := s.Rollback(c.Context, name, spec, c.String("reason"))
			if errors.Is(err, store.ErrNoChange) {
				return withHint(err, "nothing was written")
			}
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cliout.JSON(getEnv(c).stdout, toVersionJSON(v))
			}
			if c.Bool("dry-run") {
				cliout.Printf(getEnv(c).stdout, "%s would be recorded (commit %s): %s\n", v.Name(), shortHash(v.Commit), v.Reason)
				noteDryRun(c)
				return nil
			}
			cliout.Printf(getEnv(c).stdout, "%s recorded (commit %s): %s\n", v.Name(), shortHash(v.Commit), v.Reason)
			return nil
		},
	}
}

func storeStatusCommand(name string, status store.Status) *cli.Command {
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
			s, args, err := openStoreArgs(c, 1, 1)
			if err != nil {
				return err
			}
			name, err := resolveNameArg(c, s, args[0])
			if err != nil {
				return err
			}
			err = s.SetStatus(c.Context, name, status, c.String("reason"))
			e := getEnv(c)
			if errors.Is(err, store.ErrNoChange) {
				cliout.Printf(e.stdout, "%s is already %s\n", name, status)
				return nil
			}
			if err != nil {
				return err
			}
			cliout.Printf(e.stdout, "%s is now %s\n", name, status)
			return nil
		},
	}
}

func storeRmCommand() *cli.Command {
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
				return withHint(fmt.Errorf("rm --purge deletes every version of %s for good; not done without confirmation", name),
					fmt.Sprintf("rerun as 'skillstore rm --purge --yes %s' to confirm, or drop --purge to only remove it", name))
			}
			s, err := openStore(c)
			if err != nil {
				return err
			}
			if name, err = resolveNameArg(c, s, name); err != nil {
				return err
			}
			e := getEnv(c)
			if c.Bool("purge") {
				if err := s.Purge(c.Context, name, c.String("reason")); err != nil {
					return err
				}
				cliout.Printf(e.stdout, "%s purged; 'skillstore gc' deletes its objects once they are older than the grace period\n", name)
				return nil
			}
			err = s.SetStatus(c.Context, name, store.StatusRemoved, c.String("reason"))
			if errors.Is(err, store.ErrNoChange) {
				cliout.Printf(e.stdout, "%s is already removed\n", name)
				return nil
			}
			if err != nil {
				return err
			}
			cliout.Printf(e.stdout, "%s removed (history kept; 'skillstore enable %s' restores it)\n", name, name)
			return nil
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
		return "", "", withHint(usageErrorf("rollback needs the version to roll back to: NAME@VERSION or NAME VERSION"),
			"run 'skillstore log "+strings.TrimSuffix(args[0], "@")+"' to see its versions")
	}
	return name, spec, nil
}
