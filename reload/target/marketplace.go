package target

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A marketplace target is a folder that an agent adds once as a local
// plugin marketplace ('claude plugin marketplace add DIR'): a catalog file
// listing the plugins, and one folder per plugin under plugins/, holding
// the plugin's manifest, its published skills under skills/NAME/ and its
// other parts (commands/, agents/, hooks/, .mcp.json ...). The agent then
// keeps its own namespacing (PLUGIN:SKILL), hooks, commands and agents.
//
//	DIR/.claude-plugin/marketplace.json    the catalog (Claude Code)
//	DIR/plugins/PLUGIN/.claude-plugin/plugin.json
//	DIR/plugins/PLUGIN/skills/NAME/SKILL.md
//	DIR/plugins/PLUGIN/hooks/hooks.json ...
//
// Each plugin folder is switched atomically as one unit by package reload
// (its bookkeeping is DIR/plugins/.skillstore), and the catalog is replaced
// atomically after the folders (see marketplace_export.go).

// Target kinds.
const (
	// KindSkills is a skills folder: one folder per skill (the default).
	KindSkills = ""
	// KindClaudeMarketplace is a local Claude Code plugin marketplace.
	KindClaudeMarketplace = "claude-marketplace"
	// KindCodexMarketplace is a local Codex plugin marketplace.
	KindCodexMarketplace = "codex-marketplace"
)

// Kinds lists the target kinds 'target add --kind' accepts.
var Kinds = []string{"skills", KindClaudeMarketplace, KindCodexMarketplace}

// DefaultMarketplace is a marketplace target's catalog name unless the user
// picks one.
const DefaultMarketplace = "skillstore"

// reservedMarketplaces are names Claude Code keeps for Anthropic's own
// marketplaces ('marketplace add' refuses them for a local folder, as
// Claude Code 2.1.197 does) or for plugins it loads itself (validate
// refuses skills-dir, inline and builtin).
var reservedMarketplaces = []string{
	"claude-code-marketplace", "claude-code-plugins", "claude-plugins-official",
	"anthropic-marketplace", "anthropic-plugins", "agent-skills", "anthropic-agent-skills",
	"life-sciences", "knowledge-work-plugins", "claude-for-legal",
	"claude-for-financial-services", "financial-services-plugins",
	"skills-dir", "inline", "builtin", "synced",
}

// A marketplace or plugin name: kebab-case, as both agents' catalogs use.
var kebabRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`) })

// CheckMarketplaceName reports whether name can name a marketplace target's
// catalog: kebab-case and not reserved by Claude Code (its official names,
// and anything starting with "anthropic" or "claude-code", which read as
// Anthropic's).
func CheckMarketplaceName(name string) error {
	if !kebabRE().MatchString(name) {
		return fmt.Errorf("marketplace name %q: use lowercase letters, digits and '-'", name)
	}
	if slices.Contains(reservedMarketplaces, name) || strings.HasPrefix(name, "anthropic") || strings.HasPrefix(name, "claude-code") {
		return fmt.Errorf("marketplace name %q is reserved by Claude Code for Anthropic's own marketplaces; pick another (default %q)", name, DefaultMarketplace)
	}
	return nil
}

// IsMarketplace reports whether t is a plugin marketplace target.
func (t Target) IsMarketplace() bool { return t.Kind != KindSkills }

// MarketplaceName is t's catalog name.
func (t Target) MarketplaceName() string {
	if t.Marketplace == "" {
		return DefaultMarketplace
	}
	return t.Marketplace
}

// checkKind checks the kind-specific fields of a new target.
func (t Target) checkKind() error {
	switch t.Kind {
	case KindSkills:
		if t.Marketplace != "" || t.ManagedPlugin != "" {
			return fmt.Errorf("target %s: a marketplace name and a managed-skills plugin need --kind %s or %s", t.Name, KindClaudeMarketplace, KindCodexMarketplace)
		}
		return nil
	case KindClaudeMarketplace, KindCodexMarketplace:
	default:
		return fmt.Errorf("target %s: unknown kind %q (kinds: %s)", t.Name, t.Kind, strings.Join(Kinds, ", "))
	}
	if t.Project != "" {
		return fmt.Errorf("target %s: a marketplace target is a folder of its own, not a project's skills folder", t.Name)
	}
	if err := CheckMarketplaceName(t.MarketplaceName()); err != nil {
		return fmt.Errorf("target %s: %w", t.Name, err)
	}
	if t.ManagedPlugin != "" && !kebabRE().MatchString(t.ManagedPlugin) {
		return fmt.Errorf("target %s: plugin name %q: use lowercase letters, digits and '-'", t.Name, t.ManagedPlugin)
	}
	return nil
}

// flavor is what differs between the agents' marketplace formats.
type flavor struct {
	// catalog is the catalog file, relative to the target folder.
	catalog string
	// manifestDir holds plugin.json inside a plugin folder.
	manifestDir string
	// parts tells which of a plugin's other parts the agent reads.
	parts func(path string) bool
}

// pluginsDir holds the plugin folders inside a marketplace target.
const pluginsDir = "plugins"

// PluginsDir is the folder holding a marketplace target's plugin folders.
func (t Target) PluginsDir() string { return filepath.Join(t.Dir, pluginsDir) }

func (t Target) flavor() flavor {
	if t.Kind == KindCodexMarketplace {
		return flavor{catalog: ".agents/plugins/marketplace.json", manifestDir: ".codex-plugin", parts: codexPart}
	}
	return flavor{catalog: ".claude-plugin/marketplace.json", manifestDir: ".claude-plugin", parts: claudePart}
}

// claudePart: Claude Code reads every part of a Claude Code plugin.
func claudePart(string) bool { return true }

// codexPart: Codex reads skills and MCP servers from a plugin; Claude
// Code's commands, agents and hooks formats are not Codex's.
func codexPart(p string) bool { return p == ".mcp.json" || strings.HasPrefix(p, "assets/") }
