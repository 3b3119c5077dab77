package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/remote"
	"github.com/skillstore/skillstore/store/safety"
)

// The flags several commands share, and the functions that read them into
// the typed options of package app: each flag is read by name only here
// or in its command's own function.

// newJSONFlag returns the --json flag used by every command that lists or reports.
func newJSONFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON"}
}

// verboseFlag is --verbose on the commands that summarise file lists.
func verboseFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list every file, and do not fit lines to the terminal"}
}

// dryRunFlag is --dry-run on a command that writes: the command runs its
// usual code on a dry-run store and reports what it would have done (see
// app.Global's OpenStoreFor; pull runs on a scratch copy of the store
// instead, remote.Scratch).
func dryRunFlag(usage string) *cli.BoolFlag {
	return &cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: usage}
}

func reasonFlag() cli.Flag {
	return &cli.StringFlag{Name: "reason", Usage: "why (recorded in the history)"}
}

// skillDirFlag is --skill-dir, the cli layer of discovery.
func skillDirFlag() *cli.StringSliceFlag {
	return &cli.StringSliceFlag{Name: "skill-dir", Usage: "also search `DIR` for skills, before every other root (repeatable)"}
}

// intakeFlags are plugin add's and sync's flags for what is left out.
func intakeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "strict", Usage: "all or nothing per plugin: when a part of it would be left out, write nothing of it and fail"},
		&cli.StringFlag{Name: "allow-risk", Usage: "highest safety risk level to take in (low, medium, high, critical); a skill above it is left out", Value: safety.DefaultAllowedRisk.String()},
	}
}

// intakeOptions reads intakeFlags; a command without them (plugin resume
// syncs too) gets the defaults.
func intakeOptions(c *cli.Context) (app.Intake, error) {
	if c.String("allow-risk") == "" {
		allow, err := app.CapRisk(safety.DefaultAllowedRisk, false)
		return app.Intake{Strict: c.Bool("strict"), AllowRisk: allow}, err
	}
	allow, err := safety.ParseRiskLevel(c.String("allow-risk"))
	switch {
	case err != nil:
		return app.Intake{}, app.UsageErrorf("--allow-risk: %v", err)
	case allow == safety.RiskNone:
		return app.Intake{}, app.UsageErrorf("--allow-risk none would leave out every skill that holds a script: give low or above")
	}
	allow, err = app.CapRisk(allow, c.IsSet("allow-risk"))
	return app.Intake{Strict: c.Bool("strict"), AllowRisk: allow}, err
}

func addFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "reason", Usage: "why (recorded on each new version)"},
		&cli.BoolFlag{Name: "strict", Usage: "validate SKILL.md with the strict rules"},
		&cli.StringFlag{Name: "allow-risk", Usage: "highest safety risk level to accept (none, low, medium, high, critical)", Value: safety.DefaultAllowedRisk.String()},
		newJSONFlag(),
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print each SKILL.md warning (by default one line per kind, with a count)"},
	}
}

// addOptions reads addFlags.
func addOptions(c *cli.Context) (store.AddOptions, error) {
	risk, err := safety.ParseRiskLevel(c.String("allow-risk"))
	if err != nil {
		return store.AddOptions{}, app.UsageErrorf("--allow-risk: %v", err)
	}
	if risk, err = app.CapRisk(risk, c.IsSet("allow-risk")); err != nil {
		return store.AddOptions{}, err
	}
	mode := discover.Lenient
	if c.Bool("strict") {
		mode = discover.Strict
	}
	return store.AddOptions{Reason: c.String("reason"), Validation: mode, AllowRisk: risk}, nil
}

func nameFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "as", Usage: "record the folder as the managed skill `NAME` (one folder); --as PLUGIN:NAME is --into PLUGIN:NAME"},
		&cli.StringSliceFlag{Name: "into", Usage: "record the folder of SKILL's name (any folder, when there is one) as the next version of the existing skill `SKILL` (PLUGIN:NAME or a unique NAME; repeatable)"},
	}
}

func allowRiskFlag() cli.Flag {
	return &cli.StringFlag{Name: "allow-risk", Usage: "highest safety risk level to accept in fetched versions (none, low, medium, high, critical)", Value: safety.DefaultAllowedRisk.String()}
}

func maxNewSkillsFlag() cli.Flag {
	return &cli.IntFlag{Name: "max-new-skills", Usage: "most skills one pull may create in this store; a remote with more is refused before anything is fetched", Value: remote.DefaultMaxNewSkills}
}

// parseMaxNewSkills reads --max-new-skills, which must be positive.
func parseMaxNewSkills(c *cli.Context) (int, error) {
	n := c.Int("max-new-skills")
	if n <= 0 {
		return 0, app.UsageErrorf("--max-new-skills %d is not positive: give how many skills one pull may create", n)
	}
	return n, nil
}

func parseAllowRisk(c *cli.Context) (safety.RiskLevel, error) {
	risk, err := safety.ParseRiskLevel(c.String("allow-risk"))
	if err != nil {
		return 0, app.UsageErrorf("--allow-risk: %v", err)
	}
	if risk == safety.RiskNone {
		return 0, app.UsageErrorf("--allow-risk none is not supported for remotes: fetched versions always carry script findings")
	}
	return app.CapRisk(risk, c.IsSet("allow-risk"))
}

// oneArg is the Action of a command that takes exactly one argument, named
// name in its usage error: it checks the count and passes the argument on.
func oneArg(name string, run func(c *cli.Context, arg string) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() != 1 {
			return app.WithHint(app.UsageErrorf("%s needs exactly one %s argument", commandPath(c), name),
				fmt.Sprintf("run '%s --help' for usage", typedCommand(c)))
		}
		return run(c, c.Args().First())
	}
}

// storeArgs checks the number of arguments (flags that follow arguments
// were already moved in front of them by permuteArgs).
func storeArgs(c *cli.Context, min, max int) ([]string, error) {
	args := c.Args().Slice()
	if len(args) < min || (max >= 0 && len(args) > max) {
		takes := c.Command.ArgsUsage
		if takes == "" {
			takes = "no arguments"
		}
		return nil, app.WithHint(app.UsageErrorf("%s takes %s", commandPath(c), takes), fmt.Sprintf("run '%s --help' for usage", typedCommand(c)))
	}
	return args, nil
}

// output reads --json and --verbose, where the command has them.
func output(c *cli.Context) app.Output {
	return app.Output{JSON: c.Bool("json"), Verbose: c.Bool("verbose")}
}
