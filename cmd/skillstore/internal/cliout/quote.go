// Package cliout is how skillstore's CLI writes for people: one rule for
// text that comes from outside (Printf, Quote), tables that fit the
// terminal (Table, FileSummary), colours and progress lines only on a
// terminal (Painter, Progress), what a terminal would act on escaped
// (Writer), and --json written exactly (JSON, Raw). The commands
// (cmd/skillstore) and the workflows (cmd/skillstore/app) print through it.
package cliout

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// The CLI's human-readable output has one rule for text that comes from
// outside (file and folder names, paths, frontmatter, messages that hold
// them): it is printed on one line. A file named "evil\nadded x@v9" must not
// print a second line that looks like ours, nor a tab add a column.
//
// Printf and Println are the one way commands print: the
// format is ours and written as it is, every text argument passes
// Quote. Table cells and the error report do the same; Writer,
// under all of them, escapes what a terminal would act on in the rest.

// Quote is how text from outside is printed: as it is, or Quoted as
// git quotes a path when it holds a control character (skillfs.QuoteText).
// A file named "a<newline>b" prints as "a\nb".
func Quote(s string) string { return skillfs.QuoteText(s) }

// QuoteAll is Quote of each of names, for a list joined into one line.
func QuoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = Quote(n)
	}
	return out
}

// Printf is fmt.Fprintf for the CLI's human-readable output: format is
// written as it is, and every text argument (a string or a type of string
// kind, an error, a fmt.Stringer, a []string) passes Quote first.
// Arguments needing no quoting are passed on untouched, so their verbs
// (%d of a Stringer, %q, %-10s) work as with fmt.
func Printf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format, quoteArgs(args)...)
}

// Reportf is Printf for a line of a report for people (a warning, a
// finding, a list): it wraps at w's report width (ReportWidthOf, set by
// --width), each line after the first starting with indent.
func Reportf(w io.Writer, indent, format string, args ...any) {
	line := strings.TrimSuffix(fmt.Sprintf(format, quoteArgs(args)...), "\n")
	fmt.Fprintln(w, WrapLine(line, ReportWidthOf(w), indent))
}

// Println is fmt.Fprintln with Printf's quoting of arguments.
func Println(w io.Writer, args ...any) {
	fmt.Fprintln(w, quoteArgs(args)...)
}

// quoteArgs returns args with each text argument that needs it quoted
// (Quote); args itself when none does.
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

// Quoted is text Printf prints as it is: quoted already, piece by piece,
// by code that knows which of its newlines are ours (the lines of an error
// listing several problems).
type Quoted string

// quoteArg is a's quoted form when a is text that needs quoting.
func quoteArg(a any) (any, bool) {
	if rv := reflect.ValueOf(a); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, false // fmt prints it as <nil>
	}
	var s string
	switch v := a.(type) {
	case nil, Quoted:
		return nil, false
	case []string:
		var out []string
		for i, e := range v {
			if skillfs.NeedsQuote(e) {
				if out == nil {
					out = append([]string(nil), v...)
				}
				out[i] = Quote(e)
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
	return Quote(s), true
}
