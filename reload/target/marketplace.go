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
// plugin marketplace ('claude plugin marketplace add DIR', 'copilot plugin
// marketplace add DIR' ...): a catalog file listing the plugins, and one
// folder per plugin under plugins/, holding the plugin's manifest, its
// published skills under skills/NAME/ and its other parts (commands/,
// agents/, hooks/, .mcp.json ...) in that agent's format. The agent then
// keeps its own namespacing (PLUGIN:SKILL), hooks, commands and agents.
//
//	DIR/.claude-plugin/marketplace.json    the catalog (Claude Code)
//	DIR/plugins/PLUGIN/.claude-plugin/plugin.json
//	DIR/plugins/PLUGIN/skills/NAME/SKILL.md
//	DIR/plugins/PLUGIN/hooks/hooks.json ...
//
// Each agent's format is one row of [flavors] (marketplace_formats.go):
// its catalog file, its plugin manifest, where each part of a plugin goes
// (or why the format cannot say it) and how its catalog and manifest read.
// Each plugin folder is switched atomically as one unit by package reload
// (its bookkeeping is DIR/plugins/.skillstore), and the catalog is replaced
// atomically after the folders (see marketplace_export.go).

// Target kinds: KindSkills, or the kind of a row of [flavors].
const (
	// KindSkills is a skills folder: one folder per skill (the default).
	KindSkills = ""
	// KindClaudeMarketplace is a local Claude Code plugin marketplace.
	KindClaudeMarketplace = "claude-marketplace"
	// KindCodexMarketplace is a local Codex plugin marketplace.
	KindCodexMarketplace = "codex-marketplace"
	// KindCopilotMarketplace is a local GitHub Copilot plugin marketplace
	// whose plugins follow the Agent Plugins spec.
	KindCopilotMarketplace = "copilot-marketplace"
	// KindCursorMarketplace is a Cursor plugin marketplace.
	KindCursorMarketplace = "cursor-marketplace"
	// KindGeminiExtensions is a folder of Gemini CLI extensions.
	KindGeminiExtensions = "gemini-extensions"
)

// Kinds lists the target kinds 'target add --kind' accepts: skills, then
// the kind of each row of [flavors].
var Kinds = func() []string {
	out := []string{"skills"}
	for _, f := range flavors {
		out = append(out, f.kind)
	}
	return out
}()

// MarketplaceKinds are the kinds of marketplace targets, in the table's
// order.
func MarketplaceKinds() []string { return Kinds[1:] }

// KindsHelp describes each marketplace kind on a line of its own (for
// 'target add --help'): its agent, the files export writes, what stands
// for its catalog.
func KindsHelp() string {
	var b strings.Builder
	width := 0
	for _, f := range flavors {
		width = max(width, len(f.kind))
	}
	for _, f := range flavors {
		catalog := "catalog " + f.catalog
		if f.catalog == "" {
			catalog = "no catalog: each plugin folder is installed on its own"
		}
		fmt.Fprintf(&b, "  %-*s  %s; %s,\n  %-*s  plugins %s%s\n", width, f.kind, f.agent, catalog, width, "", f.manifest, f.note)
	}
	return b.String()
}

// DefaultMarketplace is a marketplace target's catalog name unless the user
// picks one.
const DefaultMarketplace = "skillstore"

// A marketplace or plugin name: kebab-case, as the agents' catalogs use.
var kebabRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`) })

// CheckMarketplaceName reports whether name can name the catalog of a
// marketplace target of kind: kebab-case, and not a name the kind's agent
// keeps for its own marketplaces.
func CheckMarketplaceName(kind, name string) error {
	f, ok := flavorOf(kind)
	if !ok {
		return fmt.Errorf("unknown kind %q (kinds: %s)", kind, strings.Join(Kinds, ", "))
	}
	if !kebabRE().MatchString(name) {
		return fmt.Errorf("marketplace name %q: use lowercase letters, digits and '-'", name)
	}
	if f.reserved != nil {
		if why := f.reserved(name); why != "" {
			return fmt.Errorf("marketplace name %q is %s; pick another (default %q)", name, why, DefaultMarketplace)
		}
	}
	return nil
}

// IsMarketplace reports whether t is a plugin marketplace target.
func (t Target) IsMarketplace() bool { return t.Kind != KindSkills }

// HasCatalog reports whether t's kind writes a catalog file that names
// the marketplace (Gemini CLI's extensions have none).
func (t Target) HasCatalog() bool {
	f, ok := flavorOf(t.Kind)
	return ok && f.catalog != ""
}

// MarketplaceName is t's catalog name.
func (t Target) MarketplaceName() string {
	if t.Marketplace == "" {
		return DefaultMarketplace
	}
	return t.Marketplace
}

// MarketplaceHelp is how a marketplace target reaches its agent: the
// agent's name, the commands that add the target to it once, and what
// brings an export's new versions in.
type MarketplaceHelp struct {
	Agent  string
	Add    []string
	Update string
}

// MarketplaceSteps is the help of a marketplace target of kind, with dir
// and name (the catalog's name) put in as given (quote them first).
func MarketplaceSteps(kind, dir, name string) MarketplaceHelp {
	f, ok := flavorOf(kind)
	if !ok {
		return MarketplaceHelp{}
	}
	r := strings.NewReplacer("DIR", dir, "NAME", name)
	h := MarketplaceHelp{Agent: f.agent, Update: r.Replace(f.update)}
	for _, s := range f.steps {
		h.Add = append(h.Add, r.Replace(s))
	}
	return h
}

// checkKind checks the kind-specific fields of a new target.
func (t Target) checkKind() error {
	if t.Kind == KindSkills {
		if t.Marketplace != "" || t.ManagedPlugin != "" {
			return fmt.Errorf("target %s: a marketplace name and a managed-skills plugin need a marketplace --kind (%s)", t.Name, strings.Join(MarketplaceKinds(), ", "))
		}
		return nil
	}
	if _, ok := flavorOf(t.Kind); !ok {
		return fmt.Errorf("target %s: unknown kind %q (kinds: %s)", t.Name, t.Kind, strings.Join(Kinds, ", "))
	}
	if t.Project != "" {
		return fmt.Errorf("target %s: a marketplace target is a folder of its own, not a project's skills folder", t.Name)
	}
	if !t.HasCatalog() && t.Marketplace != "" {
		return fmt.Errorf("target %s: %s has no catalog to name: leave out --marketplace", t.Name, t.Kind)
	}
	if err := CheckMarketplaceName(t.Kind, t.MarketplaceName()); err != nil {
		return fmt.Errorf("target %s: %w", t.Name, err)
	}
	if t.ManagedPlugin != "" && !kebabRE().MatchString(t.ManagedPlugin) {
		return fmt.Errorf("target %s: plugin name %q: use lowercase letters, digits and '-'", t.Name, t.ManagedPlugin)
	}
	return nil
}

// pluginsDir holds the plugin folders inside a marketplace target.
const pluginsDir = "plugins"

// PluginsDir is the folder holding a marketplace target's plugin folders.
func (t Target) PluginsDir() string { return filepath.Join(t.Dir, pluginsDir) }

// flavor is t's row of [flavors]; the Claude Code row for a kind no row
// has (List refuses such a record, so only a hand-made Target has one).
func (t Target) flavor() *flavor {
	if f, ok := flavorOf(t.Kind); ok {
		return f
	}
	return &flavors[0]
}

func flavorOf(kind string) (*flavor, bool) {
	i := slices.IndexFunc(flavors, func(f flavor) bool { return f.kind == kind })
	if i < 0 {
		return nil, false
	}
	return &flavors[i], true
}
