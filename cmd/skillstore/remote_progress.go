package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/remote"
)

// pushWithProgress is remote.Push with a progress line on a terminal.
func pushWithProgress(c *cli.Context, s *store.Store, opts remote.PushOptions) (rep *remote.PushReport, err error) {
	err = withProgress(c, "pushing", func() error {
		rep, err = remote.Push(c.Context, s, opts)
		return err
	})
	return rep, err
}

// pullWithProgress is remote.Pull with a progress line on a terminal.
func pullWithProgress(c *cli.Context, s *store.Store, opts remote.PullOptions) (rep *remote.PullReport, err error) {
	err = withProgress(c, "pulling", func() error {
		rep, err = remote.Pull(c.Context, s, opts)
		return err
	})
	return rep, err
}

// withProgress is cliout.Progress on stderr, quiet under --json.
func withProgress(c *cli.Context, label string, fn func() error) error {
	w := getEnv(c).stderr
	if c.Bool("json") {
		w = io.Discard
	}
	return cliout.Progress(w, label, fn)
}
