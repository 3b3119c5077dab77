package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// What plugin add and sync print about the parts they left out (see the
// store's intake.go): one line per part on stderr naming it and why, and a
// hint saying what takes it in. A part an earlier run reported already,
// for the same upstream content (LeftOut.Again), is not printed again:
// cron hears of it once.

// printLeftOut prints the parts plugin p's report left out and returns
// how many it printed.
func printLeftOut(w io.Writer, p store.PluginReport) int {
	n := 0
	for _, sk := range withParts(p) {
		label := store.QualifiedName(p.Plugin, sk.Skill)
		if store.IsPluginParts(sk.Skill) {
			label = partsLabel(sk.Skill)
		}
		for _, l := range sk.LeftOut {
			if l.Again {
				continue
			}
			n++
			if l.Path != "" {
				cliout.Printf(w, "skillstore: left out: %s: %s: %s\n", label, l.Path, l.Reason)
			} else {
				cliout.Printf(w, "skillstore: left out: %s: %s\n", label, l.Reason)
			}
			cliout.Printf(w, "skillstore: hint: %s\n", takeIn(p.Plugin, sk.Skill, l))
		}
	}
	return n
}

// takeIn says what takes a left-out part in.
func takeIn(plugin, skill string, l store.LeftOut) string {
	name := store.QualifiedName(plugin, skill)
	if store.IsPluginParts(skill) {
		name = skill
	}
	stop := ""
	if !store.IsPluginParts(skill) {
		stop = "; 'skillstore plugin skills " + plugin + " --remove " + skill + "' stops asking"
	}
	switch l.Kind {
	case store.LeftOutFile:
		return "the rest of " + name + " went in; once the file is fixed upstream, the next sync takes it in"
	case store.LeftOutRisk:
		return "read the findings; then take it in with --allow-risk " + l.Risk + ", or accept this version with 'skillstore plugin trust " + name + "' (a change upstream asks again)" + stop
	}
	return "the rest of plugin " + plugin + " went in; once " + name + " is fixed upstream, the next sync takes it in" + stop
}

// intakeFlags are plugin add's and sync's flags for what is left out.
func intakeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "strict", Usage: "all or nothing per plugin: when a part of it would be left out, write nothing of it and fail"},
		&cli.StringFlag{Name: "allow-risk", Usage: "highest safety risk level to take in (low, medium, high, critical); a skill above it is left out", Value: safety.DefaultAllowedRisk.String()},
	}
}

// intakeOptions reads intakeFlags; a command without them (plugin resume
// syncs too) gets the defaults.
func intakeOptions(c *cli.Context) (strict bool, allow safety.RiskLevel, err error) {
	if c.String("allow-risk") == "" {
		return c.Bool("strict"), safety.DefaultAllowedRisk, nil
	}
	allow, err = safety.ParseRiskLevel(c.String("allow-risk"))
	switch {
	case err != nil:
		return false, 0, usageErrorf("--allow-risk: %v", err)
	case allow == safety.RiskNone:
		return false, 0, usageErrorf("--allow-risk none would leave out every skill that holds a script: give low or above")
	}
	return c.Bool("strict"), allow, nil
}
