package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload/target"
)

// targetCrossRefs finds, when there is a store with targets, the
// PLUGIN:NAME references in exported skills that a flat target cannot
// resolve (target.CrossReferences); doctor works without a store.
func targetCrossRefs(c *cli.Context) []target.CrossRef {
	out := []target.CrossRef{}
	s, targets := doctorTargets(c)
	if len(targets) == 0 {
		return out
	}
	refs, err := target.CrossReferences(c.Context, s, targets)
	if err != nil {
		getEnv(c).log.Debug("cross-references not checked", "err", err)
		return out
	}
	return append(out, refs...)
}

// writeCrossRefs prints one line per unresolved reference and, once, what
// to do about it.
func writeCrossRefs(w io.Writer, refs []target.CrossRef) {
	if len(refs) == 0 {
		return
	}
	cliout.Printf(w, "\nCross-references that do not resolve in flat targets (the agent knows a skill by its folder name there):\n")
	for _, r := range refs {
		sees := "no skill of that name is exported there"
		if r.Sees != "" {
			sees = "the agent sees it as " + r.Sees
		}
		cliout.Printf(w, "  %s: %s (%s:%d) refers to %s; %s\n", r.Target, r.Skill, r.File, r.Line, r.Ref, sees)
	}
	cliout.Println(w, "  Plugins whose skills refer to each other as PLUGIN:NAME keep working when exported as a Claude Code plugin:")
	cliout.Println(w, "  add a target of kind claude-marketplace and narrow the flat target's skills.")
}
