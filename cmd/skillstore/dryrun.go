package main

import (
	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/store"
)

// dryRunFlag is --dry-run on a command that writes: the command runs its
// usual code on a store whose transactions are discarded (store.DryRun)
// and reports what it would have done.
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

// wouldPrefix is what a dry run puts before the report of a command.
func wouldPrefix(c *cli.Context) string {
	if c.Bool("dry-run") {
		return "dry run, nothing written: "
	}
	return ""
}
