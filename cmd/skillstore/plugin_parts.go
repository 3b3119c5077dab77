package main

import (
	"io"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/remote"
)

// What the commands print about a plugin's parts, "PLUGIN:_plugin" (see
// the README's "Plugin parts"): one line in sync and plugin add reports,
// one row in plugin list/status.

// partsLabel names a plugin's parts unit in reports.
func partsLabel(name string) string { return name + " (plugin parts)" }

// writePartsReport prints the sync of a plugin's parts, when it changed
// anything; it reports whether it printed a change. Errors are printed
// here only when the plugin's own error line names failed skills instead.
func writePartsReport(w, errw io.Writer, p store.PluginReport, verbose bool) bool {
	sk := p.Parts
	if sk == nil {
		return false
	}
	if sk.Error != "" {
		if strings.HasSuffix(p.Error, "failed: "+failedSkills(p)) {
			cliout.Printf(errw, "skillstore: error: %s: %s\n", partsLabel(sk.Skill), sk.Error)
		}
		return false
	}
	if !sk.Changed() || sk.Classification == store.ClassLeftOut {
		return false // left out: printLeftOut names it
	}
	cliout.Printf(w, "%s: %s\n", partsLabel(sk.Skill), partsLine(*sk, verbose))
	return true
}

// partsLine is syncLine for a plugin's parts: the risk of the update, and
// what changed, which is always cold (agents load a plugin's hooks,
// servers and manifest when a session starts).
func partsLine(sk store.SkillReport, verbose bool) string {
	line := syncLine(sk, verbose)
	if sk.Classification == store.ClassNew {
		line = strings.Replace(line, "new skill", "new", 1)
	}
	if sk.Risk != "" && sk.Risk != "none" {
		line += ", risk " + sk.Risk
	}
	switch {
	case len(sk.Paths) > 0 && sk.Classification == store.ClassNew:
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
func writePartsRow(w io.Writer, info *store.PluginInfo) {
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
func withParts(p store.PluginReport) []store.SkillReport {
	if p.Parts == nil {
		return p.Skills
	}
	return append(p.Skills[:len(p.Skills):len(p.Skills)], *p.Parts)
}

// skillsOnly counts the pulled skills, leaving out plugins' parts.
func skillsOnly(pulled []remote.PullSkill) int {
	n := 0
	for _, ps := range pulled {
		if !store.IsPluginParts(ps.Skill) {
			n++
		}
	}
	return n
}
