package app

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/skillindex"
)

// FindOptions are find's.
type FindOptions struct {
	Global
	Output
	Query string
	// Indexes are the indexes asked, in the order their results print.
	Indexes []skillindex.Index
	// Limit bounds each index's results; Timeout each index's search.
	Limit   int
	Timeout time.Duration
	// Explicit reports that the indexes were named (--index): a GitHub
	// index without a token is then a failure, not a note.
	Explicit bool
}

// findReport is what find prints (--json).
type findReport struct {
	Query   string       `json:"query"`
	Results []findResult `json:"results"`
	Errors  []findError  `json:"errors,omitempty"`
	Notes   []string     `json:"notes,omitempty"`
}

type findResult struct {
	skillindex.Result
	// Add is the command that adds the skill ("" when the index's source
	// is no GitHub owner/repo a command line can safely hold).
	Add string `json:"add,omitempty"`
}

type findError struct {
	Index string `json:"index"`
	Error string `json:"error"`
}

// Find asks each index at once, each within opts.Timeout, and prints
// their results with the 'plugin add' line of each. An index that fails
// is named in one line, the others' results printed all the same (exit
// 1); a GitHub index without a token is a note unless asked for by name.
func Find(ctx context.Context, opts FindOptions) error {
	if len(strings.TrimSpace(opts.Query)) < 2 {
		return UsageErrorf("find: the query must be at least 2 characters")
	}
	found := make([][]skillindex.Result, len(opts.Indexes))
	errs := make([]error, len(opts.Indexes))
	var wg sync.WaitGroup
	for i, ix := range opts.Indexes {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
			defer cancel()
			found[i], errs[i] = ix.Search(ctx, opts.Query, opts.Limit)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	rep := findReport{Query: opts.Query, Results: []findResult{}}
	for i, ix := range opts.Indexes {
		switch err := errs[i]; {
		case errors.Is(err, skillindex.ErrNoToken) && !opts.Explicit:
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: not asked: %v", ix.Name(), err))
		case errors.Is(err, context.DeadlineExceeded):
			rep.Errors = append(rep.Errors, findError{ix.Name(), fmt.Sprintf("%v (within %s; --timeout gives more)", err, opts.Timeout)})
		case err != nil:
			rep.Errors = append(rep.Errors, findError{ix.Name(), err.Error()})
		}
		for _, r := range found[i] {
			rep.Results = append(rep.Results, findResult{Result: r, Add: addLine(r)})
		}
	}
	if opts.JSON {
		if err := cliout.JSON(opts.Stdout, rep); err != nil {
			return err
		}
	} else {
		printFind(opts, rep)
	}
	if len(rep.Errors) > 0 {
		return ErrReported
	}
	return nil
}

// skillName is a name a command line holds as it is (compiled at first
// use: see skillindex.IsRepoName).
var skillName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) })

// addLine is the command that adds r's skill from its repository, or ""
// when the index gave a source or name that is not plainly one.
func addLine(r skillindex.Result) string {
	if !skillindex.IsRepoName(r.Source) || !skillName().MatchString(r.Name) {
		return ""
	}
	return fmt.Sprintf("skillstore plugin add %s --skill %s", r.Source, r.Name)
}

func printFind(opts FindOptions, rep findReport) {
	w := opts.Stdout
	for _, n := range rep.Notes {
		cliout.Printf(opts.Stderr, "skillstore: note: %s\n", n)
	}
	for _, e := range rep.Errors {
		cliout.Printf(opts.Stderr, "skillstore: error: %s: %s\n", e.Index, e.Error)
	}
	if len(rep.Results) == 0 {
		if len(rep.Errors) < len(opts.Indexes) {
			cliout.Printf(w, "no skills found for %q\n", rep.Query)
		}
		return
	}
	t := cliout.NewTable(-1)
	for _, r := range rep.Results {
		t.Add(r.Index, r.Name, r.Source, popularity(r.Result))
	}
	t.Write(w, cliout.NewPainter(w), cliout.Width(w, opts.Verbose))
	cliout.Printf(w, "to add one:\n")
	for _, r := range rep.Results {
		if r.Add != "" {
			cliout.Printf(w, "  %s\n", r.Add)
		} else {
			cliout.Printf(w, "  (%s: no plugin add line: the index gave source %q)\n", r.Name, r.Source)
		}
	}
}

// popularity is what the index says of a result's use: installs (skills.sh)
// or the repository's stars (GitHub).
func popularity(r skillindex.Result) string {
	switch {
	case r.Installs != nil:
		return Plural(*r.Installs, "install")
	case r.Stars != nil:
		return Plural(*r.Stars, "star")
	}
	return ""
}

// ParseIndexes reads --index: "all" (or empty), or a comma-separated list
// of skills.sh and github.
func ParseIndexes(s string) ([]string, error) {
	if s == "" || s == "all" {
		return []string{"skills.sh", "github"}, nil
	}
	var out []string
	for _, n := range strings.Split(s, ",") {
		switch n = strings.TrimSpace(n); n {
		case "skills.sh", "github":
			out = append(out, n)
		default:
			return nil, UsageErrorf("--index %s: unknown index %s (skills.sh, github or all)", strconv.Quote(s), strconv.Quote(n))
		}
	}
	return out, nil
}
