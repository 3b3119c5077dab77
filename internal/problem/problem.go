// Package problem is the convention for errors that report several problems
// at once (every file a safety check rejects, every ref a remote must not
// have): such an error carries its problems as a list, gives a one-line
// message for logs and reports, and lets the command line show one problem
// per line without parsing the message apart.
//
// An error type implements [List]; its Error method returns [Format] of its
// summary and details. [Expand] turns the message of an error that wraps a
// List into the multi-line form a terminal shows.
package problem

import (
	"errors"
	"strings"
)

// List is an error made of a summary and the problems it lists.
type List interface {
	error
	// Summary says what failed, without the problems ("deploy rejected by
	// the safety check").
	Summary() string
	// Details are the problems, one line each, in the order to show them.
	Details() []string
}

// Format is the one-line form of a List: "summary: d1; d2". With no details
// it is the summary alone.
func Format(summary string, details []string) string {
	if len(details) == 0 {
		return summary
	}
	return summary + ": " + strings.Join(details, "; ")
}

// Lines is the multi-line form of a List: the summary and a colon, then one
// detail per line, each indented two spaces.
func Lines(summary string, details []string) string {
	if len(details) == 0 {
		return summary
	}
	return summary + ":\n  " + strings.Join(details, "\n  ")
}

// Expand returns err's message with the one-line form of the first List in
// its chain (found with [errors.As]) replaced by its multi-line form, so
// context that wrapping added ("add deploy: ...") stays in front of the
// summary. A message without a List is returned as it is.
func Expand(err error) string {
	return strings.Join(ExpandLines(err, func(s string) string { return s }), "\n")
}

// ExpandLines is [Expand] as lines, with each piece of text that came from
// the error (the context and summary, each detail, what follows the list)
// passed through quote before the lines are made: a terminal quotes names
// that hold a newline this way, and a detail can then never split into two
// lines. A message without a List is one line.
func ExpandLines(err error, quote func(string) string) []string {
	msg := err.Error()
	var l List
	if !errors.As(err, &l) {
		return []string{quote(msg)}
	}
	one := l.Error()
	i := strings.LastIndex(msg, one)
	if i < 0 {
		return []string{quote(msg)}
	}
	head, tail := msg[:i]+l.Summary(), msg[i+len(one):]
	details := l.Details()
	if len(details) == 0 {
		return []string{quote(head + tail)}
	}
	lines := []string{quote(head) + ":"}
	for _, d := range details {
		lines = append(lines, "  "+quote(d))
	}
	if tail != "" {
		lines[len(lines)-1] += quote(tail)
	}
	return lines
}
