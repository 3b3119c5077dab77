package reload

import (
	"path"
	"slices"
	"strings"
)

// A plugin's parts (the store's "PLUGIN:_plugin": manifest, hooks, MCP and
// LSP servers, commands, agents, settings, README...) are not a skill: no
// agent re-reads any of them in a running session the way it re-reads a
// SKILL.md. Claude Code reads the manifest, registers hooks and starts MCP
// and LSP servers when a session starts (or on /plugin reload), so every
// change to them is cold.

// ClassifyParts compares the old and new trees of a plugin's parts (nil:
// none): Unchanged, or Cold with the paths that changed. Never Hot, even
// for a change to a SKILL.md-named file (a plugin's parts hold none at
// their top; skills are classified apart with [Classify]).
func ClassifyParts(old, new *Tree) Change {
	c := Classify(old, new)
	if c.Class == Hot {
		c.Class = Cold
	}
	return c
}

// The kinds of a plugin's parts [PartKind] names.
const (
	PartManifest = "manifest"
	PartHooks    = "hooks"
	PartMCP      = "MCP servers"
	PartLSP      = "LSP servers"
	PartCommands = "commands"
	PartAgents   = "agents"
	PartSettings = "settings"
	PartOther    = "other files"
)

// PartKind names what a path of a plugin's parts is, for messages that
// say why a change is cold ("hooks, manifest changed").
func PartKind(p string) string {
	switch p {
	case ".claude-plugin/plugin.json", ".codex-plugin/plugin.json":
		return PartManifest
	case ".mcp.json":
		return PartMCP
	case ".lsp.json":
		return PartLSP
	case "settings.json":
		return PartSettings
	}
	switch top, _, _ := strings.Cut(p, "/"); top {
	case "hooks":
		return PartHooks
	case "commands":
		return PartCommands
	case "agents":
		return PartAgents
	}
	if path.Base(p) == "hooks.json" {
		return PartHooks
	}
	return PartOther
}

// PartKinds names the kinds of the changed paths of a plugin's parts,
// each once, in the order of the constants above.
func PartKinds(paths []string) []string {
	order := []string{PartManifest, PartHooks, PartMCP, PartLSP, PartCommands, PartAgents, PartSettings, PartOther}
	seen := map[string]bool{}
	for _, p := range paths {
		seen[PartKind(p)] = true
	}
	return slices.DeleteFunc(order, func(k string) bool { return !seen[k] })
}
