package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/store"
)

// storeOptions builds the store options every store command uses: the
// command's logger and --lock-timeout. GIT_COMMITTER_DATE (unix seconds or
// RFC 3339), as with git, fixes the time recorded in commits.
func storeOptions(c *cli.Context) (store.Options, error) {
	opts := store.Options{Logger: getEnv(c).log, LockTimeout: c.Duration("lock-timeout"), FetchTimeout: c.Duration("fetch-timeout"), FetchJobs: c.Int("fetch-jobs")}
	opts.BeforeGCSwitch = testHold(gcHoldEnv)
	opts.AfterPrefetch = testHold(syncHoldEnv)
	if d := os.Getenv("GIT_COMMITTER_DATE"); d != "" {
		t, err := parseCommitDate(d)
		if err != nil {
			return opts, withHint(fmt.Errorf("GIT_COMMITTER_DATE=%q: %w", d, err), "use unix seconds or RFC 3339, or unset it")
		}
		opts.Now = func() time.Time { return t }
	}
	return opts, nil
}

func parseCommitDate(s string) (time.Time, error) {
	s = strings.TrimPrefix(strings.Fields(s + " ")[0], "@")
	if sec, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(sec, 0).UTC(), nil
	}
	return time.Parse(time.RFC3339, s)
}

// openStore opens the store of --store/$SKILLSTORE_DIR/the XDG default, or
// explains that there is none and how to create it.
func openStore(c *cli.Context) (*store.Store, error) { return openStoreAs(c, nil) }

// openStoreAs is openStore recording actor (when not nil) on every commit
// instead of the default actor (git's author identity).
func openStoreAs(c *cli.Context, actor *store.Signature) (*store.Store, error) {
	dir, err := storeDir(c)
	if err != nil {
		return nil, err
	}
	opts, err := storeOptions(c)
	if err != nil {
		return nil, err
	}
	if actor != nil {
		opts.Actor = *actor
	}
	s, err := store.Open(c.Context, dir, opts)
	if errors.Is(err, store.ErrNoStore) {
		return nil, withHint(fmt.Errorf("no store at %s", dir), "run 'skillstore init' to create it, or point --store or SKILLSTORE_DIR at an existing store")
	}
	return s, err
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
		return nil, withHint(usageErrorf("%s takes %s", c.Command.Name, takes), fmt.Sprintf("run 'skillstore %s --help' for usage", c.Command.Name))
	}
	return args, nil
}

// openStoreArgs checks the arguments like storeArgs, then opens the store:
// the preamble of every store command.
func openStoreArgs(c *cli.Context, min, max int) (*store.Store, []string, error) {
	args, err := storeArgs(c, min, max)
	if err != nil {
		return nil, nil, err
	}
	s, err := openStore(c)
	if err != nil {
		return nil, nil, err
	}
	return s, args, nil
}

// validationMode is discover.Strict with --strict, else discover.Lenient.
func validationMode(strict bool) discover.Mode {
	if strict {
		return discover.Strict
	}
	return discover.Lenient
}

func shortHash(h store.Hash) string { return h.String()[:12] }
