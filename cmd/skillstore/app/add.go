package app

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// AddOptions are add's and import's: the folders (add) or the root to
// search (import), and how to record them.
type AddOptions struct {
	Global
	Output
	// Paths are add's skill folders; import takes one root to search.
	Paths []string
	// Store holds the reason, the validation mode and the risk allowed.
	// Its As and Into are set from As and Into once the folders are
	// known.
	Store store.AddOptions
	// As records the one folder as the managed skill As; Into names
	// existing skills the folders of their names become versions of.
	As   string
	Into []string
	// DryRun reports what would be recorded, writing nothing.
	DryRun bool
}

// nameOptions checks As, which names the skill of exactly one folder
// (folders is how many the command was given or found), against Into.
func (o *AddOptions) nameOptions(command string, folders int) error {
	switch {
	case o.As == "":
	case len(o.Into) > 0:
		return UsageErrorf("%s: --as and --into cannot be used together: --as makes a managed skill, --into names an existing one", command)
	case folders != 1:
		return UsageErrorf("%s: --as names the skill of one folder, and there are %d", command, folders)
	}
	o.Store.As, o.Store.Into = o.As, o.Into
	if o.As != "" {
		o.Store.Into = nil
	}
	return nil
}

// Add records skill folders as new versions, all together or none.
func Add(ctx context.Context, opts AddOptions) error {
	if err := opts.nameOptions("add", len(opts.Paths)); err != nil {
		return err
	}
	s, err := opts.OpenStoreFor(ctx, opts.DryRun)
	if err != nil {
		return err
	}
	results, err := s.Add(ctx, opts.Paths, opts.Store)
	if err != nil {
		return err
	}
	return printAddResults(opts, results)
}

// Import records every skill folder found under the root, each on its own.
func Import(ctx context.Context, opts AddOptions) error {
	dirs, err := locateSkills(ctx, opts.Global, opts.Paths[0])
	if err != nil {
		return err
	}
	if err := opts.nameOptions("import", len(dirs)); err != nil {
		return err
	}
	s, err := opts.OpenStoreFor(ctx, opts.DryRun)
	if err != nil {
		return err
	}
	var results []store.AddResult
	err = cliout.Progress(opts.ProgressOut(opts.JSON), fmt.Sprintf("importing %d skill folders", len(dirs)), func() error {
		results, err = s.ImportDirs(ctx, dirs, opts.Store)
		return err
	})
	if err != nil {
		return err
	}
	if err := printAddResults(opts, results); err != nil {
		return err
	}
	failed := 0
	for _, r := range results {
		if r.Err != nil {
			failed++
		}
	}
	if failed > 0 {
		if opts.DryRun {
			return fmt.Errorf("%s of %d could not be imported", Plural(failed, "folder"), len(results))
		}
		return fmt.Errorf("%s of %d could not be imported (the others were recorded)", Plural(failed, "folder"), len(results))
	}
	return nil
}

// locateSkills finds the skill folders under root, canonical copies
// first, and prints the walk's warnings (a skill past the depth bound).
func locateSkills(ctx context.Context, g Global, root string) ([]string, error) {
	found, diags, err := discover.Locate(ctx, root, discover.Options{Logger: g.Log})
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	for _, d := range RelativeDiagnostics(diags) {
		cliout.Printf(g.Stderr, "skillstore: %s\n", d)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no skill folders (folders with a %s) under %s", skillmd.FileName, root)
	}
	dirs := make([]string, len(found))
	for i, f := range found {
		dirs[i] = filepath.Join(root, filepath.FromSlash(f.RelDir)) // as the user named them
	}
	return dirs, nil
}

type addResultJSON struct {
	Dir       string           `json:"dir"`
	Name      string           `json:"name,omitempty"`
	Version   int              `json:"version,omitempty"`
	Commit    string           `json:"commit,omitempty"`
	Unchanged bool             `json:"unchanged"`
	Risk      string           `json:"risk,omitempty"`
	Findings  []safety.Finding `json:"findings,omitempty"`
	Error     string           `json:"error,omitempty"`
	// DuplicateOf is the folder recorded instead of this identical copy.
	DuplicateOf string `json:"duplicate_of,omitempty"`
	// Warnings are the validation policy's warnings; they do not refuse.
	Warnings []discover.Diagnostic `json:"warnings,omitempty"`
}

func printAddResults(opts AddOptions, results []store.AddResult) error {
	if opts.JSON {
		out := []addResultJSON{}
		for _, r := range results {
			j := addResultJSON{Dir: r.Dir, Name: r.Name, Unchanged: r.Unchanged, DuplicateOf: r.DuplicateOf, Warnings: warningsOf(r.Diagnostics)}
			switch {
			case r.Err != nil:
				j.Error = problem.Expand(r.Err)
			case r.DuplicateOf != "":
			default:
				j.Version, j.Commit, j.Risk, j.Findings = r.Version.Number, r.Version.Commit.String(), r.Version.Risk.String(), r.Safety.Findings
			}
			out = append(out, j)
		}
		return cliout.JSON(opts.Stdout, out)
	}
	// Errors are printed with their skill; warnings, by default, one line
	// per kind after all of them (an import of hundreds of skills of one
	// habit prints a line, not hundreds).
	var notes []Note
	for _, r := range results {
		for _, d := range r.Diagnostics {
			if d.Severity != discover.SeverityWarning || opts.Verbose {
				cliout.Printf(opts.Stderr, "skillstore: %s\n", d)
				continue
			}
			at, text := splitDiagnostic(d.String())
			notes = append(notes, Note{At: at, Text: text, Name: r.Name})
		}
		printAddResult(opts.Stdout, opts.Stderr, r, opts.DryRun)
	}
	writeNoteGroups(opts.Stderr, "skillstore", "skills", GroupNotes(notes))
	NoteDryRun(opts.Stdout, opts.DryRun, opts.JSON)
	return nil
}

func printAddResult(stdout, stderr io.Writer, r store.AddResult, dryRun bool) {
	switch {
	case r.Err != nil:
		// Quoted piece by piece: the newlines between problems are ours.
		cliout.Printf(stderr, "skillstore: error: %s\n", cliout.Quoted(strings.Join(problem.ExpandLines(r.Err, cliout.Quote), "\n")))
	case r.DuplicateOf != "":
		cliout.Printf(stderr, "skillstore: warning: %s holds the same files as %s; %s is taken once, from %s\n",
			DisplayPath(r.Dir), DisplayPath(r.DuplicateOf), r.Name, DisplayPath(r.DuplicateOf))
	case r.Unchanged:
		cliout.Printf(stdout, "%s: nothing new (same files as v%d)\n", r.Name, r.Version.Number)
	default:
		verb := "recorded"
		if dryRun {
			verb = "would be recorded"
		}
		cliout.Printf(stdout, "%s %s (commit %s, risk %s)\n", r.Version.Name(), verb, ShortHash(r.Version.Commit), r.Version.Risk)
		for _, f := range r.Safety.Findings {
			cliout.Printf(stdout, "  %s\n", f)
		}
	}
}
