package main

import (
	"io"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/store"
)

// printPolicyWarnings prints the validation policy's warnings, one per line
// on w (stderr), each led by where (a plugin, a remote) when it is set.
// Warnings never change an exit code: the policy accepted the skill.
func printPolicyWarnings(w io.Writer, where string, diags []discover.Diagnostic) {
	for _, d := range diags {
		if where != "" {
			cliout.Printf(w, "skillstore: %s: %s\n", where, d)
		} else {
			cliout.Printf(w, "skillstore: %s\n", d)
		}
	}
}

// printSyncWarnings prints the warnings of every skill of a sync or plugin
// add report.
func printSyncWarnings(w io.Writer, rep *store.SyncReport) {
	for _, p := range rep.Plugins {
		for _, sk := range p.Skills {
			printPolicyWarnings(w, "plugin "+p.Plugin, sk.Warnings)
		}
	}
}

// warningsOf keeps the warnings of diags.
func warningsOf(diags []discover.Diagnostic) []discover.Diagnostic {
	return discover.Verdict{Diagnostics: diags}.Warnings()
}
