// Package app holds what each skillstore command does from end to end:
// the workflows that cmd/skillstore calls once it has read the command's
// flags into an Options struct, and the reports they print.
//
// Every workflow is a function taking a context first and its Options,
// which embed [Global]: the streams to print to, the logger, and where the
// store is and how long to wait for it. Nothing here reads a flag or
// knows urfave/cli; an error a person should act on carries its hints
// ([Error]), and a command that printed a report of what failed ends with
// [ErrReported] or [ErrReview], which the CLI turns into exit codes (one
// table, cmd/skillstore/errors.go).
//
// The main workflows:
//   - [Sync]: capture the edits made in the targets, sync the plugins,
//     export what was published; [Check] is the same pipeline on a dry-run
//     store (store.DryRun), the one way a writing command runs dry.
//   - [Adopt]: take an existing installation over, reading each other
//     installer's records with one reader per format.
//   - [Export], [Status], [Capture]: the targets.
//   - [Doctor]: discovery, the targets' context cost and cross-references.
//   - [Pull] (its dry run on a scratch copy: remote.Scratch), [Push], [Clone].
//   - the candidates' work folders ([EditCandidate], [MergetoolCandidate]).
package app

import (
	"io"
	"log/slog"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
)

// Global is what every workflow takes from the process and the global
// flags.
type Global struct {
	// Stdin, Stdout and Stderr are the command's streams: its report goes
	// to Stdout; errors, notes and progress lines to Stderr.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Log receives debug messages (a discarding handler unless --debug).
	Log *slog.Logger
	// Store is the store folder the command was given (--store,
	// $SKILLSTORE_DIR); empty means the default (see StoreDir).
	Store string
	// LockTimeout is how long to wait for the store lock.
	LockTimeout time.Duration
	// FetchTimeout is the connect and idle deadline of each git fetch.
	FetchTimeout time.Duration
	// FetchJobs is how many git sources are fetched at once (0: the
	// defaults).
	FetchJobs int
	// PrintError prints an error on Stderr as the CLI reports the error
	// that ends a command (its message, then the hints its error table
	// gives), for a workflow that reports several and goes on: one
	// plugin of a marketplace that failed. Nil prints the message alone.
	PrintError func(error)
	// SyncDone, when set, is given every run of sync's pipeline (sync,
	// check, plugin resume) once it is complete: a test seam, for the
	// scenario harness that checks that check says what sync then does.
	SyncDone func(*SyncRun)
}

// Output is how a command prints its report.
type Output struct {
	// JSON prints the report as JSON instead of lines for people.
	JSON bool
	// Verbose lists every file and does not fit lines to the terminal.
	Verbose bool
}

// printError prints err as the CLI reports an error (PrintError).
func (g Global) printError(err error) {
	if g.PrintError != nil {
		g.PrintError(err)
		return
	}
	cliout.Printf(g.Stderr, "skillstore: error: %v\n", err)
}

// ProgressOut is where a command's progress line goes: stderr, or nowhere
// when the report is JSON.
func (g Global) ProgressOut(json bool) io.Writer {
	if json {
		return io.Discard
	}
	return g.Stderr
}
