package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/manifest"
)

// writeAddReport prints what plugin add did: per plugin, added, already
// there, renamed, moved, skipped (stderr notes) or failed (stderr errors,
// with hints). Any failure exits 1, after the report.
func writeAddReport(c *cli.Context, src store.Source, rep *store.SyncReport) error {
	e := getEnv(c)
	failed := 0
	for _, p := range rep.Plugins {
		if p.Error != "" {
			failed++
		}
	}
	if c.Bool("json") {
		if err := writeJSON(e.stdout, rep); err != nil || failed == 0 {
			return err
		}
		return silentExit(exitError)
	}
	for _, r := range rep.Renamed {
		printf(e.stdout, "plugin %s is now %s (renamed by the marketplace; history kept)\n", r.From, r.To)
	}
	for _, m := range rep.Moved {
		printf(e.stdout, "plugin %s now follows %s (was %s); the next sync fetches it\n", m.Plugin, m.To, m.From)
	}
	switch n := len(rep.AlreadyAdded); {
	case n == 1:
		printf(e.stdout, "plugin %s is already added from %s\n", rep.AlreadyAdded[0], src)
	case n > 1: // one line, however long the marketplace
		printf(e.stdout, "%d plugins are already added from %s: %s\n", n, src, strings.Join(rep.AlreadyAdded, ", "))
	}
	for _, p := range rep.Plugins {
		if p.Error != "" {
			continue
		}
		printf(e.stdout, "%s plugin %s from %s: %d skill(s)\n", dryRunWord(c, "added", "would add"), p.Plugin, p.Source, len(p.Skills))
		for _, sk := range p.Skills {
			if sk.Classification != store.ClassNew {
				// A skill linked back to the plugin it left: synced like any update.
				printf(e.stdout, "  %s linked back: %s\n", sk.Skill, syncLine(sk, false))
				continue
			}
			printf(e.stdout, "  %s v%d\n", sk.Skill, sk.NewVersion)
		}
		if p.Parts != nil && p.Parts.Error == "" {
			printf(e.stdout, "  %s: %s\n", partsLabel(p.Parts.Skill), partsLine(*p.Parts, false))
		}
		if p.Note != "" {
			printf(e.stderr, "skillstore: note: plugin %s: %s\n", p.Plugin, p.Note)
		}
	}
	for _, sk := range rep.Skipped {
		reason := sk.Reason
		if reason == manifest.NoSkillsReason {
			reason += fmt.Sprintf("; add it alone with SOURCE#%s to version those", sk.Name)
		}
		printf(e.stderr, "skillstore: note: plugin %s of the marketplace not added: %s\n", sk.Name, reason)
	}
	printSyncWarnings(e.stderr, rep)
	noteDryRun(c)
	if failed == 0 {
		return nil
	}
	for _, p := range rep.Plugins {
		if p.Err != nil {
			report(e.stderr, p.Err)
		}
	}
	if total := len(rep.Plugins) + len(rep.AlreadyAdded) + len(rep.Skipped); total > 1 {
		printf(e.stderr, "skillstore: %d plugin(s) of %s failed (nothing written for them); %d added\n", failed, src, len(rep.Plugins)-failed)
	}
	return silentExit(exitError)
}
