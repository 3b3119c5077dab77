package app

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
)

// VerifyOptions are verify's; Quick checks that blobs are present instead
// of reading and re-hashing them.
type VerifyOptions struct {
	Global
	Output
	Quick bool
}

// Verify checks every invariant of the store and prints each problem.
func Verify(ctx context.Context, opts VerifyOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	rep, err := s.VerifyWith(ctx, store.VerifyOptions{Quick: opts.Quick})
	if err != nil {
		return err
	}
	if opts.JSON {
		if rep.Problems == nil {
			rep.Problems = []store.VerifyProblem{}
		}
		if rep.Warnings == nil {
			rep.Warnings = []store.VerifyProblem{}
		}
		if err := cliout.JSON(opts.Stdout, rep); err != nil {
			return err
		}
	} else {
		for _, p := range rep.Problems {
			cliout.Println(opts.Stdout, p)
		}
		writeVerifyWarnings(opts.Stderr, rep.Warnings, opts.Verbose)
	}
	if !rep.OK() {
		return WithHint(fmt.Errorf("verify found %s in %s", Plural(len(rep.Problems), "problem"), s.Dir()),
			"a ref can be repaired with plain git (git update-ref), or restored from a clone of the store")
	}
	if !opts.JSON {
		cliout.Printf(opts.Stdout, "ok: %s, %s, %s verified\n", Plural(rep.Skills, "skill"), Plural(rep.Versions, "version"), Plural(rep.Refs, "ref"))
	}
	return nil
}

// writeVerifyWarnings prints the validation policy's warnings: one line
// per kind with a count, or with verbose one line each.
func writeVerifyWarnings(w io.Writer, warnings []store.VerifyProblem, verbose bool) {
	if verbose {
		for _, p := range warnings {
			cliout.Printf(w, "skillstore: %s\n", p)
		}
		return
	}
	notes := make([]Note, len(warnings))
	for i, p := range warnings {
		at, text := splitDiagnostic(p.Message)
		notes[i] = Note{Where: p.Where, At: at, Text: text}
	}
	if writeNoteGroups(w, "skillstore", "skills", GroupNotes(notes)) {
		cliout.Printf(w, "skillstore: %s about the SKILL.md of the latest versions; 'skillstore verify --verbose' lists each\n", Plural(len(warnings), "warning"))
	}
}

// splitDiagnostic splits "FILE:LINE: severity: message" (a diagnostic's
// String) into its place and the rest.
func splitDiagnostic(s string) (at, rest string) {
	for _, sev := range []string{": warning: ", ": error: "} {
		if i := strings.Index(s, sev); i >= 0 {
			return s[:i], s[i+2:]
		}
	}
	return "", s
}

// GCOptions are gc's; Grace keeps unreachable objects younger than it.
type GCOptions struct {
	Global
	Output
	Grace time.Duration
}

// GC packs objects and refs and prunes unreachable objects past the grace
// period.
func GC(ctx context.Context, opts GCOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	// gc's heap is its per-object records (no pointers, so cheap
	// to collect): collecting more often keeps its peak memory
	// closer to them.
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	res, err := s.GC(ctx, opts.Grace)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, res)
	}
	cliout.Printf(opts.Stdout, "packed %s (%d as deltas) into %d bytes and %s\n", Plural(res.Objects, "object"), res.Deltas, res.PackBytes, Plural(res.Refs, "ref"))
	cliout.Printf(opts.Stdout, "removed %s and %s; pruned %s (%d younger than %s kept)\n",
		Plural(res.LooseRemoved, "loose object"), Plural(res.PacksRemoved, "old pack"), Plural(res.Pruned, "unreachable object"), res.Kept, opts.Grace)
	if res.Superseded > 0 {
		cliout.Printf(opts.Stdout, "dropped %s of candidates no remote holds any more\n", Plural(res.Superseded, "superseded ref"))
	}
	return nil
}
