package remote

import (
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// withPartsFindings adds to the safety report of a plugin's parts
// ("PLUGIN:_plugin", see store.PluginParts) what they declare to run:
// hooks, MCP and LSP servers new or changed against previous (both with
// Data), as sync grades them. Other names' reports are returned as they
// are. A pulled parts version needs no SKILL.md.
func withPartsFindings(skill string, rep safety.Report, files, previous []store.File) safety.Report {
	if !store.IsPluginParts(skill) {
		return rep
	}
	rep.Findings = append(rep.Findings, safety.PluginFindings(files, previous)...)
	return safety.NewReport(rep.Findings)
}
