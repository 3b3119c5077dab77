package main

import (
	"fmt"
	"io"
	"reflect"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// The CLI's human-readable output has one rule for text that comes from
// outside (file and folder names, paths, frontmatter, messages that hold
// them): it is printed on one line. A file named "evil\nadded x@v9" must not
// print a second line that looks like ours, nor a tab add a column.
//
// printf and printLine are the one way commands print: the
// format is ours and written as it is, every text argument passes
// quoteText. table cells and the error report do the same; termWriter,
// under all of them, escapes what a terminal would act on in the rest.

// quoteText is how text from outside is printed: as it is, or quoted as
// git quotes a path when it holds a control character (skillfs.QuoteText).
// A file named "a<newline>b" prints as "a\nb".
func quoteText(s string) string { return skillfs.QuoteText(s) }

// quoteAll is quoteText of each of names, for a list joined into one line.
func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quoteText(n)
	}
	return out
}

// printf is fmt.Fprintf for the CLI's human-readable output: format is
// written as it is, and every text argument (a string or a type of string
// kind, an error, a fmt.Stringer, a []string) passes quoteText first.
// Arguments needing no quoting are passed on untouched, so their verbs
// (%d of a Stringer, %q, %-10s) work as with fmt.
func printf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format, quoteArgs(args)...)
}

// printLine is fmt.Fprintln with printf's quoting of arguments.
func printLine(w io.Writer, args ...any) {
	fmt.Fprintln(w, quoteArgs(args)...)
}

// quoteArgs returns args with each text argument that needs it quoted
// (quoteText); args itself when none does.
func quoteArgs(args []any) []any {
	out := args
	for i, a := range args {
		q, ok := quoteArg(a)
		if !ok {
			continue
		}
		if &out[0] == &args[0] {
			out = append([]any(nil), args...)
		}
		out[i] = q
	}
	return out
}

// quoted is text printf prints as it is: quoted already, piece by piece,
// by code that knows which of its newlines are ours (the lines of an error
// listing several problems).
type quoted string

// quoteArg is a's quoted form when a is text that needs quoting.
func quoteArg(a any) (any, bool) {
	if rv := reflect.ValueOf(a); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, false // fmt prints it as <nil>
	}
	var s string
	switch v := a.(type) {
	case nil, quoted:
		return nil, false
	case []string:
		var out []string
		for i, e := range v {
			if skillfs.NeedsQuote(e) {
				if out == nil {
					out = append([]string(nil), v...)
				}
				out[i] = quoteText(e)
			}
		}
		return out, out != nil
	case error:
		s = v.Error()
	case fmt.Stringer:
		s = v.String()
	default:
		rv := reflect.ValueOf(a)
		if rv.Kind() != reflect.String {
			return nil, false
		}
		s = rv.String()
	}
	if !skillfs.NeedsQuote(s) {
		return nil, false
	}
	return quoteText(s), true
}
