package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/treediff"
)

// explainNextExport tells, after accept, what the next export does with the
// new version: which targets get it, and whether agents re-read SKILL.md
// (hot) or need a restart (cold), judged from what the candidate changed.
func explainNextExport(c *cli.Context, s *store.Store, v store.Version, changes []treediff.FileChange) error {
	targets, err := target.List(c.Context, s, nil)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range targets {
		if t.Wants(v.Skill) {
			names = append(names, t.Name)
		}
	}
	out := getEnv(c).stdout
	if len(names) == 0 {
		cliout.Printf(out, "no target exports %s; add one with 'skillstore target add'\n", v.Skill)
		return nil
	}
	class := "cold: restart the agent"
	if onlySkillText(changes) {
		class = "hot: agents re-read SKILL.md"
	}
	cliout.Printf(out, "next: 'skillstore export' writes %s into %s (%s); or accept with --export\n", v.Name(), strings.Join(names, ", "), class)
	return nil
}

// onlySkillText reports a change of SKILL.md's text alone, what export
// classifies as hot (if the target holds the previous version).
func onlySkillText(changes []treediff.FileChange) bool {
	for _, ch := range changes {
		if ch.Kind != treediff.ChangeModified || ch.NewPath != store.SkillFile || ch.ModeChanged() {
			return false
		}
	}
	return len(changes) > 0
}

// acceptAndExport exports into every target after accept --export and
// prints the accept line and export's lines (or both as JSON).
func acceptAndExport(c *cli.Context, s *store.Store, v store.Version) error {
	e := getEnv(c)
	targets, err := target.List(c.Context, s, nil)
	if err != nil {
		return err
	}
	exported, err := target.Export(c.Context, s, targets, targetOptions(c))
	if c.Bool("json") {
		if jerr := cliout.JSON(e.stdout, map[string]any{"version": toVersionJSON(v), "export": exported}); jerr != nil {
			return jerr
		}
		return err
	}
	cliout.Printf(e.stdout, "accepted candidate %s: published %s\n", v.Skill, v.Name())
	if len(targets) == 0 {
		cliout.Printf(e.stdout, "no targets to export to; add one with 'skillstore target add'\n")
	}
	printExports(c, e.stdout, exported)
	return err
}
