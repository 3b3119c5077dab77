package main

import (
	"errors"
	"fmt"
)

// Exit codes shared by every command. Commands with outcomes of their own
// (sync, merge-file) document theirs in their --help and in README.md.
const (
	exitOK    = 0 // success
	exitError = 1 // the command failed; the error says why
	exitUsage = 2 // bad flags or arguments
	exitBusy  = 3 // the store lock could not be taken within --lock-timeout
	// exitReview means sync finished and candidates are waiting for review.
	exitReview = 4
)

// cliError carries an exit code and hint lines up to run, which prints the
// error once, to stderr, as "skillstore: error: ..." followed by hints.
type cliError struct {
	code  int
	err   error
	hints []string
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

// usageErrorf reports a usage mistake (exit 2).
func usageErrorf(format string, args ...any) error {
	return &cliError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// withHint attaches hint lines to err, keeping any exit code it already has.
func withHint(err error, hints ...string) error {
	if err == nil {
		return nil
	}
	var ce *cliError
	if errors.As(err, &ce) {
		return &cliError{code: ce.code, err: ce.err, hints: append(append([]string{}, ce.hints...), hints...)}
	}
	return &cliError{code: exitError, err: err, hints: hints}
}

// withCode sets the exit code carried by err.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	var ce *cliError
	if errors.As(err, &ce) {
		return &cliError{code: code, err: ce.err, hints: ce.hints}
	}
	return &cliError{code: code, err: err}
}

// silentExit ends the command with code and no message: the command has
// already reported what happened (validate's diagnostics, merge-file's count).
type silentExit int

func (s silentExit) Error() string { return fmt.Sprintf("exit status %d", int(s)) }
