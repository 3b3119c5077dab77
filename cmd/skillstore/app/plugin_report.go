package app

import (
	"io"
	"strings"

	"github.com/skillstore/skillstore/store/safety"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
	"github.com/skillstore/skillstore/store/remote"
)

// What the commands print about a plugin's parts, "PLUGIN:_plugin" (see
// docs/guide/plugins.md, "A plugin's other parts"): one line in sync and
// plugin add reports, one row in plugin list/status.

// partsLabel names a plugin's parts unit in reports.
func partsLabel(name string) string { return name + " (plugin parts)" }

// writePartsReport prints the sync of a plugin's parts, when it changed
// anything; it reports whether it printed a change. Errors are printed
// here only when the plugin's own error line names failed skills instead.
func writePartsReport(w, errw io.Writer, p pluginsync.PluginReport, verbose bool) bool {
	sk := p.Parts
	if sk == nil {
		return false
	}
	if sk.Error != "" {
		if listsFailedSkills(p.Err) {
			cliout.Printf(errw, "skillstore: error: %s: %s\n", partsLabel(sk.Skill), sk.Error)
		}
		return false
	}
	if !sk.Changed() || sk.Classification == pluginsync.ClassLeftOut {
		return false // left out: printLeftOut names it
	}
	cliout.Printf(w, "%s: %s\n", partsLabel(sk.Skill), partsLine(*sk, verbose))
	writeFindings(w, sk.Findings, "    ")
	return true
}

// writeFindings prints the findings a person should read before taking a
// version in, one line each under the line naming it: medium and above,
// and not those already in the accepted version.
func writeFindings(w io.Writer, fs []safety.Finding, indent string) {
	for _, f := range fs {
		if f.Level >= safety.RiskMedium && !f.Known {
			cliout.Printf(w, "%s%s\n", indent, f)
		}
	}
}

// partsLine is syncLine for a plugin's parts: the risk of the update, and
// what changed, which is always cold (agents load a plugin's hooks,
// servers and manifest when a session starts).
func partsLine(sk pluginsync.SkillReport, verbose bool) string {
	line := syncLine(sk, verbose)
	if sk.Classification == pluginsync.ClassNew {
		line = strings.Replace(line, "new skill", "new", 1)
	}
	if sk.Risk != "" && sk.Risk != "none" {
		line += ", risk " + sk.Risk
	}
	switch {
	case len(sk.Paths) > 0 && sk.Classification == pluginsync.ClassNew:
		line += "; holds " + strings.Join(reload.PartKinds(sk.Paths), ", ")
	case len(sk.Paths) > 0:
		line += "; cold change (restart the agent): " + strings.Join(reload.PartKinds(sk.Paths), ", ")
	}
	if len(sk.Paths) > 0 && verbose {
		line += " (" + strings.Join(sk.Paths, ", ") + ")"
	}
	return line
}

// writePartsRow prints the status of a plugin's parts under its skills,
// apart from their table: "  PLUGIN:_plugin  v3  synced (plugin parts, modified)".
func writePartsRow(w io.Writer, info *plugins.Info) {
	st := info.Parts
	if st == nil {
		return
	}
	notes := []string{"plugin parts"}
	if st.Modified {
		notes = append(notes, "modified")
	}
	cliout.Printf(w, "  %s  v%d  %s (%s)\n", st.Skill, st.Version, st.Status, strings.Join(notes, ", "))
}

// withParts is a plugin's skill reports followed by its parts' report, for
// listings that show both alike (check).
func withParts(p pluginsync.PluginReport) []pluginsync.SkillReport {
	if p.Parts == nil {
		return p.Skills
	}
	return append(p.Skills[:len(p.Skills):len(p.Skills)], *p.Parts)
}

// SkillsOnly counts the pulled skills, leaving out plugins' parts.
func SkillsOnly(pulled []remote.PullSkill) int {
	n := 0
	for _, ps := range pulled {
		if !store.IsPluginParts(ps.Skill) {
			n++
		}
	}
	return n
}

// What plugin add and sync print about the parts they left out (see the
// store's intake.go): one line per part on stderr naming it and why, and a
// hint saying what takes it in. A part an earlier run reported already,
// for the same upstream content (LeftOut.Again), is not printed again:
// cron hears of it once.

// printLeftOut prints the parts plugin p's report left out and returns
// how many it printed.
func printLeftOut(w io.Writer, p pluginsync.PluginReport) int {
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
			writeFindings(w, l.Findings, "    ")
			cliout.Printf(w, "skillstore: hint: %s\n", takeIn(p.Plugin, sk.Skill, l))
		}
	}
	return n
}

// takeIn says what takes a left-out part in.
func takeIn(plugin, skill string, l pluginsync.LeftOut) string {
	name := store.QualifiedName(plugin, skill)
	if store.IsPluginParts(skill) {
		name = skill
	}
	stop := ""
	if !store.IsPluginParts(skill) {
		stop = "; 'skillstore plugin skills " + plugin + " --remove " + skill + "' stops asking"
	}
	switch l.Kind {
	case pluginsync.LeftOutFile:
		return "the rest of " + name + " went in; once the file is fixed upstream, the next sync takes it in"
	case pluginsync.LeftOutCap:
		return "the first files of " + name + " went in, its manifests, commands, agents, hooks and servers first; once upstream holds fewer, the next sync takes the rest in"
	case pluginsync.LeftOutRisk:
		if level, err := safety.ParseRiskLevel(l.Risk); err == nil {
			if max, file, ok := loadSourcePolicy().MaxRisk(); ok && level > max {
				return "the max-risk " + max.String() + " that " + file + " sets for every user keeps it out; ask whoever manages that file" + stop
			}
		}
		return "read the findings; then take it in with --allow-risk " + l.Risk + ", or accept this version with 'skillstore plugin trust " + name + "' (a change upstream asks again)" + stop
	}
	return "the rest of plugin " + plugin + " went in; once " + name + " is fixed upstream, the next sync takes it in" + stop
}

// PrintPolicyWarnings prints the validation policy's warnings, one per line
// on w (stderr), each led by where (a plugin, a remote) when it is set.
// Warnings never change an exit code: the policy accepted the skill.
func PrintPolicyWarnings(w io.Writer, where string, diags []discover.Diagnostic) {
	for _, d := range diags {
		if where != "" {
			cliout.Printf(w, "skillstore: %s: %s\n", where, d)
		} else {
			cliout.Printf(w, "skillstore: %s\n", d)
		}
	}
}

// printSyncWarnings prints the warnings of every skill of a sync or plugin
// add report: one line per kind, with a count and the plugins concerned
// (the plugins of a marketplace that share a skill folder meet its
// warnings once each; a marketplace of many plugins repeats one habit), or
// with verbose one line each.
func printSyncWarnings(w io.Writer, rep *pluginsync.Report, verbose bool) {
	var notes []Note
	for _, p := range rep.Plugins {
		for _, sk := range p.Skills {
			if verbose {
				PrintPolicyWarnings(w, "plugin "+p.Plugin, sk.Warnings)
				continue
			}
			for _, d := range sk.Warnings {
				at, text := splitDiagnostic(d.String())
				notes = append(notes, Note{Where: "plugin " + p.Plugin, At: at, Text: text, Name: syncName(p.Plugin, sk)})
			}
		}
	}
	writeNoteGroups(w, "skillstore", "skills", GroupNotes(notes))
}

// warningsOf keeps the warnings of diags.
func warningsOf(diags []discover.Diagnostic) []discover.Diagnostic {
	return discover.Verdict{Diagnostics: diags}.Warnings()
}
