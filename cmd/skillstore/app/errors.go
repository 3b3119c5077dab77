package app

import (
	"errors"
	"fmt"
)

// Error is an error for the person at the terminal: the CLI prints it
// once, then its Hints, one line each, saying what to do next. Usage
// marks a mistake in what the command was given that the workflow found
// (an agent skillstore does not know, a flag that does not fit the
// source). The CLI's error table (cmd/skillstore/errors.go) gives it its
// exit code.
type Error struct {
	Err   error
	Usage bool
	Hints []string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// UsageErrorf reports a mistake in the command's arguments or flags.
func UsageErrorf(format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...), Usage: true}
}

// WithHint attaches hint lines to err, keeping whether it is a usage
// mistake and the hints it has already.
func WithHint(err error, hints ...string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return &Error{Err: e.Err, Usage: e.Usage, Hints: append(append([]string{}, e.Hints...), hints...)}
	}
	return &Error{Err: err, Hints: hints}
}

// The ends of a command that printed its report already: the CLI prints
// nothing more and exits with the outcome's code.
var (
	// ErrReported: something failed, and the report says what (exit 1).
	ErrReported = errors.New("failed: the report above says what")
	// ErrReview: done, and candidates wait for review (exit 4).
	ErrReview = errors.New("done: candidates wait for review")
)
