package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

// StoreDir resolves the store directory: the one the command was given
// (--store, $SKILLSTORE_DIR), else $XDG_DATA_HOME/skillstore, else
// ~/.local/share/skillstore.
func (g Global) StoreDir() (string, error) {
	if g.Store != "" {
		return filepath.Abs(g.Store)
	}
	if xdg := os.Getenv("XDG_DATA_HOME"); xdg != "" {
		return filepath.Join(xdg, "skillstore"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", WithHint(fmt.Errorf("cannot find the store: %w", err), "set --store or SKILLSTORE_DIR")
	}
	return filepath.Join(home, ".local", "share", "skillstore"), nil
}

// Init creates the store (a bare git repository).
func Init(ctx context.Context, opts Global) error {
	dir, err := opts.StoreDir()
	if err != nil {
		return err
	}
	sopts, err := opts.StoreOptions()
	if err != nil {
		return err
	}
	if _, err := store.Init(ctx, dir, sopts); err != nil {
		if errors.Is(err, store.ErrStoreExists) {
			return WithHint(fmt.Errorf("a store already exists at %s", dir), "use it as it is, or pick another --store")
		}
		return err
	}
	cliout.Printf(opts.Stdout, "initialized an empty store at %s\n", dir)
	return nil
}

// StoreOptions builds the store options every store command uses: the
// logger, the global timeouts, the source policy and the external scanner
// it names (policy.go). GIT_COMMITTER_DATE (unix seconds or
// RFC 3339), as with git, fixes the time recorded in commits.
func (g Global) StoreOptions() (store.Options, error) {
	policy := loadSourcePolicy()
	opts := store.Options{Logger: g.Log, LockTimeout: g.LockTimeout, FetchTimeout: g.FetchTimeout, FetchJobs: g.FetchJobs,
		SourcePolicy: policy, Scanner: policy.Scanner()}
	opts.BeforeGCSwitch = testHold(GCHoldEnv)
	opts.AfterPrefetch = testHold(SyncHoldEnv)
	opts.BeforeMergeAhead = testHold(MergeHoldEnv)
	if d := os.Getenv("GIT_COMMITTER_DATE"); d != "" {
		t, err := parseCommitDate(d)
		if err != nil {
			return opts, WithHint(fmt.Errorf("GIT_COMMITTER_DATE=%q: %w", d, err), "use unix seconds or RFC 3339, or unset it")
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

// OpenStore opens the store, or explains that there is none and how to
// create it.
func (g Global) OpenStore(ctx context.Context) (*store.Store, error) {
	dir, err := g.StoreDir()
	if err != nil {
		return nil, err
	}
	opts, err := g.StoreOptions()
	if err != nil {
		return nil, err
	}
	s, err := store.Open(ctx, dir, opts)
	if errors.Is(err, store.ErrNoStore) {
		return nil, WithHint(fmt.Errorf("no store at %s", dir), "run 'skillstore init' to create it, or point --store or SKILLSTORE_DIR at an existing store")
	}
	return s, err
}

// OpenOrInitStore opens the store, creating an empty one where StoreDir
// says when there is none: what 'install' does on a fresh machine (a CI
// runner), so restoring a project's lock takes one command. created
// reports that the store is new.
func (g Global) OpenOrInitStore(ctx context.Context) (s *store.Store, created bool, err error) {
	dir, err := g.StoreDir()
	if err != nil {
		return nil, false, err
	}
	opts, err := g.StoreOptions()
	if err != nil {
		return nil, false, err
	}
	if store.Exists(dir) {
		s, err = store.Open(ctx, dir, opts)
		return s, false, err
	}
	s, err = store.Init(ctx, dir, opts)
	if err != nil {
		return nil, false, WithHint(err, "point --store or SKILLSTORE_DIR at an existing store, or at an empty folder for a new one")
	}
	return s, true, nil
}

// OpenStoreFor opens the store a writing command works on: the store,
// or with dryRun the same store as a dry run, whose transactions keep
// their writes in memory (store.DryRun) and whose exports and captures
// leave the targets alone (target.Export, target.Capture). That is the
// one way a command runs dry: its usual code, writing nothing. (pull,
// which writes fetched packs before it decides, runs on a scratch copy
// of the store instead: remote.Scratch.)
func (g Global) OpenStoreFor(ctx context.Context, dryRun bool) (*store.Store, error) {
	s, err := g.OpenStore(ctx)
	if err != nil || !dryRun {
		return s, err
	}
	return s.DryRun(), nil
}

// NoteDryRun ends the report of a dry run (not JSON) with a line that
// says nothing was written.
func NoteDryRun(w io.Writer, dryRun, json bool) {
	if dryRun && !json {
		cliout.Println(w, "dry run: nothing was written")
	}
}

// DryRunWord is done, or would in a dry run.
func DryRunWord(dryRun bool, done, would string) string {
	if dryRun {
		return would
	}
	return done
}

// Test seams: when one of these names a file, the command writes FILE.held
// at the point named and waits there until FILE is removed. Tests use them
// to run other processes at that moment.
const (
	// GCHoldEnv holds gc once its new pack is written, before it takes
	// the store's exclusive lock to switch to the pack.
	GCHoldEnv = "SKILLSTORE_TEST_GC_HOLD"
	// SyncHoldEnv holds sync once it has fetched its sources, before it
	// takes the exclusive lock to apply them.
	SyncHoldEnv = "SKILLSTORE_TEST_SYNC_HOLD"
	// MergeHoldEnv holds a write (sync, pull, capture, adopt) once it has
	// planned the large three-way merges it computes with no lock held,
	// before it computes them.
	MergeHoldEnv = "SKILLSTORE_TEST_MERGE_HOLD"
)

// testHold returns the hook that holds a command where env says, or nil.
func testHold(env string) func() {
	path := os.Getenv(env)
	if path == "" {
		return nil
	}
	return func() {
		os.WriteFile(path+".held", []byte("held\n"), 0o644)
		for {
			if _, err := os.Stat(path); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
