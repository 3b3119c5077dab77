package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

func storeInitCommand() *cli.Command {
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
			dir, err := storeDir(c)
			if err != nil {
				return err
			}
			opts, err := storeOptions(c)
			if err != nil {
				return err
			}
			if _, err := store.Init(c.Context, dir, opts); err != nil {
				if errors.Is(err, store.ErrStoreExists) {
					return withHint(fmt.Errorf("a store already exists at %s", dir), "use it as it is, or pick another --store")
				}
				return err
			}
			cliout.Printf(getEnv(c).stdout, "initialized an empty store at %s\n", dir)
			return nil
		},
	}
}
