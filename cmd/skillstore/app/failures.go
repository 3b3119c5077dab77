package app

import (
	"fmt"
	"io"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
)

// A failure is one item of a report that failed: a plugin of a
// marketplace, say. Name is how the summary names it.
type failure struct {
	Name string
	Err  error
}

// alikeFailures is how many failures of one kind print one by one; from
// this many on, the first prints in full and one line names the rest.
const alikeFailures = 3

// printFailures prints the failures of a report cause first: each alone,
// except that alikeFailures or more of one kind (their messages the same
// but for the items' names, paths, URLs and numbers) print as the first in
// full and one line counting and naming the others. An offline
// marketplace's hundreds of plugins fail with one cause; it is said once.
// --verbose prints every one. printErr prints one error (with its hints).
func printFailures(w io.Writer, things string, fs []failure, verbose bool, printErr func(error)) {
	if verbose || len(fs) < alikeFailures {
		for _, f := range fs {
			printErr(f.Err)
		}
		return
	}
	var order []string
	groups := map[string][]failure{}
	for _, f := range fs {
		k := failureKind(f)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], f)
	}
	for _, k := range order {
		g := groups[k]
		if len(g) < alikeFailures {
			for _, f := range g {
				printErr(f.Err)
			}
			continue
		}
		printErr(g[0].Err)
		names := make([]string, 0, len(g)-1)
		for _, f := range g[1:] {
			names = append(names, f.Name)
		}
		cliout.Printf(w, "skillstore: error: %d more %s failed the same way (--verbose prints each): %s\n", len(names), things, NameSummary(names, 5))
	}
}

// failureKind is a failure's message with its particulars masked: the
// item's own name, and words holding a digit, a quote or a slash (sizes,
// lines, names, paths and URLs). Two failures of one kind differ only
// there.
func failureKind(f failure) string {
	text := f.Err.Error()
	if f.Name != "" {
		text = strings.ReplaceAll(text, f.Name, "#")
	}
	ws := strings.Fields(text)
	for i, w := range ws {
		if strings.ContainsAny(w, "0123456789\"'`/\\") {
			ws[i] = "#"
		}
	}
	return strings.Join(ws, " ")
}

// errorText is an error as a failure carries a message that was already
// flattened into a report (a plugin's Error string).
type errorText string

func (e errorText) Error() string { return string(e) }

// textFailure is a failure from a reported message, printed as prefix
// and message ("plugin NAME: ...").
func textFailure(name, prefix, msg string) failure {
	return failure{Name: name, Err: errorText(fmt.Sprintf("%s%s", prefix, msg))}
}
