package main

import (
	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

// dryRunFlag is --dry-run on a command that writes: the command runs its
// usual code on a dry-run store, whose transactions keep their writes in
// memory (store.DryRun), and whose exports and captures leave the targets
// alone (target.Export, target.Capture), and reports what it would have
// done. (pull, which writes fetched packs before it decides, runs on a
// scratch copy of the store instead: pull_dryrun.go.)
func dryRunFlag(usage string) *cli.BoolFlag {
	return &cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: usage}
}

// openStoreForWrite opens the store, as a dry run with --dry-run.
func openStoreForWrite(c *cli.Context) (*store.Store, error) {
	s, err := openStore(c)
	if err != nil || !c.Bool("dry-run") {
		return s, err
	}
	return s.DryRun(), nil
}

// noteDryRun ends the report of a dry run (not --json) with a line that
// says nothing was written.
func noteDryRun(c *cli.Context) {
	if c.Bool("dry-run") && !c.Bool("json") {
		cliout.Println(getEnv(c).stdout, "dry run: nothing was written")
	}
}

// dryRunWord is done, or would under --dry-run.
func dryRunWord(c *cli.Context, done, would string) string {
	if c.Bool("dry-run") {
		return would
	}
	return done
}
