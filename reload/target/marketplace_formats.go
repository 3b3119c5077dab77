package target

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// flavor is one agent's marketplace format, a row of [flavors]. All that
// differs between the agents' formats is here: the export machinery
// (marketplace_export.go, marketplace_plugins.go) reads only the row.
type flavor struct {
	kind    string            // the --kind value
	agent   string            // the agent's name, in help and notes
	dialect pluginfmt.Dialect // the dialect pluginfmt reads these files as
	// catalog is the catalog file, relative to the target folder; "" for
	// a format that has none (Gemini CLI installs each extension by path).
	catalog string
	// manifest is plugin.json's path inside a plugin folder; loose when
	// other tools use that name too (a plugin.json at a plugin's top):
	// one that is no JSON object with a "name" is an ordinary file.
	manifest string
	loose    bool
	// note ends the kind's line in 'target add --help'.
	note string
	// steps add the target to the agent once, update brings an export's
	// new versions in (DIR and NAME replaced).
	steps  []string
	update string
	// reserved says why a catalog name is the agent's own ("" if not).
	reserved func(name string) string
	// checkID refuses a plugin id the agent cannot name a plugin.
	checkID func(id string) error
	// catalogDoc is the catalog's document, listing entries; entry is a
	// plugin's entry in it.
	catalogDoc func(name string, entries []any) any
	entry      func(id string, c *composed) any
	// keys are the manifest keys the format says, those kept from another
	// agent's manifest; authorKeys the keys of its "author" (nil: none).
	keys, authorKeys []string
	// place says where a part of another agent's plugin goes in this
	// agent's plugin folder, or why the format cannot say it (a part of a
	// plugin in this agent's own format goes where it is).
	place func(c component, p string) (out, why string)
	// fixManifest makes what is left particular to the format: own is
	// whether m is the plugin's manifest in this agent's format, files the
	// plugin folder as it is written (without its manifest).
	fixManifest func(m manifestDoc, own bool, files []skillfs.File)
}

// flavors are the marketplace formats export writes, one per agent, in
// the order 'target add --help' lists them; when a plugin ships several
// agents' manifests and none is the target's own, the first of them in
// this order is the one translated.
var flavors = []flavor{
	{
		kind: KindClaudeMarketplace, agent: "Claude Code", dialect: pluginfmt.DialectClaude,
		catalog: pluginfmt.MarketplaceManifest, manifest: pluginfmt.ClaudePluginManifest,
		steps:    []string{"claude plugin marketplace add DIR", "claude plugin install PLUGIN@NAME"},
		update:   "run 'claude plugin marketplace update NAME' and 'claude plugin update PLUGIN@NAME'",
		reserved: claudeReserved,
		catalogDoc: func(name string, entries []any) any {
			return ownedCatalog{Name: name, Owner: catalogOwner{Name: "skillstore"}, Metadata: catalogMetadata{Description: catalogDescription}, Plugins: entries}
		},
		entry: func(id string, c *composed) any {
			return claudeEntry{Name: id, Source: "./" + pluginsDir + "/" + id, Version: c.Version, Description: c.Description}
		},
		keys:       []string{"name", "version", "description", "author", "homepage", "repository", "license", "keywords"},
		authorKeys: []string{"name", "email", "url"},
		place: func(c component, p string) (string, string) {
			switch c {
			case compAgent:
				return agentMD(p), ""
			case compCommand, compOther:
				return p, ""
			case compMCP:
				return ".mcp.json", ""
			}
			return "", "Claude Code's plugins have no " + c.noun()
		},
		fixManifest: func(manifestDoc, bool, []skillfs.File) {},
	},
	{
		kind: KindCodexMarketplace, agent: "Codex", dialect: pluginfmt.DialectCodex,
		catalog: ".agents/plugins/marketplace.json", manifest: pluginfmt.CodexPluginManifest,
		note:   " (skills, .mcp.json and assets/ only)",
		steps:  []string{"codex plugin marketplace add DIR", "codex plugin add PLUGIN@NAME"},
		update: "run 'codex plugin add PLUGIN@NAME' again: it installs the new version",
		catalogDoc: func(name string, entries []any) any {
			return codexCatalog{Name: name, Interface: codexInterface{DisplayName: name + " (skillstore)"}, Plugins: entries}
		},
		entry: func(id string, c *composed) any {
			return codexEntry{Name: id, Source: codexSource{Source: "local", Path: "./" + pluginsDir + "/" + id},
				Policy: codexPolicy{Installation: "AVAILABLE", Authentication: "ON_INSTALL"}, Category: "Productivity"}
		},
		keys:       []string{"name", "version", "description", "author", "homepage", "repository", "license", "keywords"},
		authorKeys: []string{"name", "email", "url"},
		place: func(c component, p string) (string, string) {
			switch {
			case c == compMCP:
				return ".mcp.json", ""
			case c == compOther && strings.HasPrefix(p, "assets/"):
				return p, ""
			case c == compOther:
				return "", "Codex reads a plugin's skills, .mcp.json and assets/ only"
			}
			return "", "Codex's plugins have no " + c.noun()
		},
		fixManifest: func(m manifestDoc, _ bool, files []skillfs.File) {
			m.set("skills", "./skills/")
			if _, ok := skillfs.Find(files, ".mcp.json"); ok {
				m.set("mcpServers", "./.mcp.json")
			}
			// Claude Code's component paths, which Codex does not read.
			delete(m, "hooks")
			delete(m, "commands")
			delete(m, "agents")
		},
	},
	{
		kind: KindCopilotMarketplace, agent: "GitHub Copilot", dialect: pluginfmt.DialectCopilot,
		catalog: ".github/plugin/marketplace.json", manifest: "plugin.json", loose: true,
		note:   " (the Agent Plugins spec)",
		steps:  []string{"copilot plugin marketplace add DIR", "copilot plugin install PLUGIN@NAME"},
		update: "nothing: Copilot loads the plugins live from DIR, in its next session",
		reserved: func(name string) string {
			// Copilot CLI 1.0.102 refuses both for a local marketplace.
			if name == "awesome-copilot" || name == "copilot-plugins" {
				return "one of Copilot's own marketplaces"
			}
			return ""
		},
		checkID: idChecker(`^[a-z0-9]+(-[a-z0-9]+)*$`, "GitHub Copilot names plugins in kebab-case (lowercase letters, digits and '-')"),
		catalogDoc: func(name string, entries []any) any {
			return ownedCatalog{Name: name, Owner: catalogOwner{Name: "skillstore"}, Metadata: catalogMetadata{Description: catalogDescription}, Plugins: entries}
		},
		entry: func(id string, c *composed) any {
			return copilotEntry{Name: id, Source: pluginsDir + "/" + id, Description: c.Description, Version: c.Version}
		},
		// The Agent Plugins manifest (1.0.0) is closed: these and
		// "extensions" are all it has.
		keys:       []string{"name", "version", "description", "author", "homepage", "repository", "license", "keywords"},
		authorKeys: []string{"name", "email", "url"},
		place: func(c component, p string) (string, string) {
			switch c {
			case compAgent:
				return agentDotAgent(p), ""
			case compMCP:
				return ".mcp.json", ""
			case compOther:
				return p, ""
			case compCommand:
				return "", "GitHub Copilot reads a plugin's commands only from a path in plugin.json, which the Agent Plugins manifest cannot hold"
			}
			return "", "GitHub Copilot's plugins have no " + c.noun()
		},
		fixManifest: func(m manifestDoc, own bool, _ []skillfs.File) {
			if !own {
				m.set("$schema", agentPluginsSchema)
			}
		},
	},
	{
		kind: KindCursorMarketplace, agent: "Cursor", dialect: pluginfmt.DialectCursor,
		catalog: ".cursor-plugin/marketplace.json", manifest: ".cursor-plugin/plugin.json",
		steps: []string{
			"push DIR to a git repository and import it as a team marketplace (Cursor's dashboard: Settings, Plugins),",
			"or copy one plugin folder, DIR/plugins/PLUGIN, to ~/.cursor/plugins/local/PLUGIN",
		},
		update:  "push DIR again (a team marketplace), or copy the plugin folder again",
		checkID: idChecker(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`, "Cursor names plugins with lowercase letters, digits, '-' and '.'"),
		catalogDoc: func(name string, entries []any) any {
			return ownedCatalog{Name: name, Owner: catalogOwner{Name: "skillstore"}, Metadata: catalogMetadata{Description: catalogDescription}, Plugins: entries}
		},
		entry: func(id string, c *composed) any {
			return cursorEntry{Name: id, Source: pluginsDir + "/" + id, Description: c.Description}
		},
		// Cursor's manifest schema is closed: these and its component paths.
		keys:       []string{"name", "displayName", "version", "description", "author", "publisher", "homepage", "repository", "license", "logo", "keywords", "category", "tags"},
		authorKeys: []string{"name", "email"},
		place: func(c component, p string) (string, string) {
			switch c {
			case compAgent:
				return agentMD(p), ""
			case compCommand, compRule, compOther:
				return p, ""
			case compMCP:
				return "mcp.json", ""
			}
			return "", "Cursor's plugins have no " + c.noun()
		},
		fixManifest: func(manifestDoc, bool, []skillfs.File) {},
	},
	{
		kind: KindGeminiExtensions, agent: "Gemini CLI", dialect: pluginfmt.DialectGemini,
		manifest: "gemini-extension.json",
		steps:    []string{"gemini extensions link DIR/plugins/PLUGIN   (each extension; or install, then update after each export)"},
		update:   "nothing for a linked extension, in Gemini CLI's next session; 'gemini extensions update PLUGIN' for an installed one",
		checkID:  idChecker(`^[a-zA-Z0-9-]+$`, "Gemini CLI names extensions with letters, digits and '-' only"),
		keys:     []string{"name", "version", "description"},
		place: func(c component, p string) (string, string) {
			switch c {
			case compAgent:
				return agentMD(p), ""
			case compCommandTOML, compContext, compOther:
				return p, ""
			case compCommand:
				return "", "Gemini CLI's commands are TOML files (commands/NAME.toml), not Markdown"
			case compMCP:
				return "", "Gemini CLI reads MCP servers from gemini-extension.json's mcpServers, not from a file"
			}
			return "", "Gemini CLI's extensions have no " + c.noun()
		},
		fixManifest: func(m manifestDoc, own bool, files []skillfs.File) {
			if _, ok := m["contextFileName"]; !ok {
				if _, has := skillfs.Find(files, geminiContextFile); has {
					m.set("contextFileName", geminiContextFile)
				}
			}
		},
	},
}

// agentPluginsSchema is the $schema of an Agent Plugins 1.0.0 manifest.
const agentPluginsSchema = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"

// geminiContextFile is the context file Gemini CLI loads from an
// extension that names none.
const geminiContextFile = "GEMINI.md"

const catalogDescription = "Plugins and skills exported by skillstore, with your edits"

// claudeReserved: names Claude Code keeps for Anthropic's own marketplaces
// ('marketplace add' refuses them for a local folder, as Claude Code
// 2.1.197 does), or for plugins it loads itself (validate refuses
// skills-dir, inline and builtin), and anything starting with "anthropic"
// or "claude-code", which read as Anthropic's.
func claudeReserved(name string) string {
	reserved := []string{
		"claude-code-marketplace", "claude-code-plugins", "claude-plugins-official",
		"anthropic-marketplace", "anthropic-plugins", "agent-skills", "anthropic-agent-skills",
		"life-sciences", "knowledge-work-plugins", "claude-for-legal",
		"claude-for-financial-services", "financial-services-plugins",
		"skills-dir", "inline", "builtin", "synced",
	}
	if slices.Contains(reserved, name) || strings.HasPrefix(name, "anthropic") || strings.HasPrefix(name, "claude-code") {
		return "reserved by Claude Code for Anthropic's own marketplaces"
	}
	return ""
}

// idChecker refuses a plugin id that does not match re, saying so. re is
// compiled at the first check: the flavors are built at every start-up.
func idChecker(re, rule string) func(string) error {
	r := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(re) })
	return func(id string) error {
		if r().MatchString(id) {
			return nil
		}
		return fmt.Errorf("plugin %q: %s; re-add it under another id (skillstore plugin add SOURCE --id NEW)", id, rule)
	}
}

// component is what a file of a plugin's parts is to the agents.
type component int

const (
	compOther       component = iota // anything else: scripts, assets, README
	compManifest                     // some agent's plugin manifest
	compAgent                        // agents/NAME.md, agents/NAME.agent.md
	compCommand                      // commands/NAME.md
	compCommandTOML                  // commands/NAME.toml (Gemini CLI)
	compRule                         // rules/NAME.mdc (Cursor)
	compHooks                        // hooks/hooks.json, hooks.json
	compMCP                          // .mcp.json, mcp.json
	compLSP                          // .lsp.json, lsp.json
	compContext                      // a context file (Gemini CLI)
)

// noun names the component in a note.
func (c component) noun() string {
	switch c {
	case compAgent:
		return "agents"
	case compCommand:
		return "commands"
	case compCommandTOML:
		return "TOML commands (Gemini CLI's)"
	case compRule:
		return "rules (Cursor's)"
	case compHooks:
		return "hooks"
	case compMCP:
		return "MCP server files"
	case compLSP:
		return "LSP servers"
	case compContext:
		return "context files (Gemini CLI's)"
	}
	return "files besides their components"
}

// classify says what p (a path in a plugin's parts) is; context are the
// plugin's context files.
func classify(p string, context []string) component {
	if slices.ContainsFunc(flavors, func(f flavor) bool { return f.manifest == p }) {
		return compManifest
	}
	if slices.Contains(context, p) {
		return compContext
	}
	top, rest, nested := strings.Cut(p, "/")
	switch {
	case p == "hooks.json" || p == "hooks/hooks.json":
		return compHooks
	case p == ".mcp.json" || p == "mcp.json":
		return compMCP
	case p == ".lsp.json" || p == "lsp.json":
		return compLSP
	case !nested:
		return compOther
	case top == "agents" && strings.HasSuffix(rest, ".md"):
		return compAgent
	case top == "commands" && strings.HasSuffix(rest, ".md"):
		return compCommand
	case top == "commands" && strings.HasSuffix(rest, ".toml"):
		return compCommandTOML
	case top == "rules":
		return compRule
	}
	return compOther
}

// agentMD is an agent file's name for Claude Code, Cursor and Gemini CLI
// (agents/NAME.md), agentDotAgent its name for GitHub Copilot
// (agents/NAME.agent.md).
func agentMD(p string) string {
	if base, ok := strings.CutSuffix(p, ".agent.md"); ok {
		return base + ".md"
	}
	return p
}

func agentDotAgent(p string) string {
	if strings.HasSuffix(p, ".agent.md") {
		return p
	}
	return strings.TrimSuffix(p, ".md") + ".agent.md"
}

// manifestDoc is a manifest as JSON values by key.
type manifestDoc map[string]json.RawMessage

func (m manifestDoc) set(key string, v any) {
	raw, _ := json.Marshal(v)
	m[key] = raw
}

func (m manifestDoc) str(key string) string {
	var v string
	if raw, ok := m[key]; ok {
		_ = json.Unmarshal(raw, &v)
	}
	return v
}

// contextFiles are the context files a Gemini CLI manifest names
// (contextFileName: a name or a list), else GEMINI.md when the parts
// hold one.
func contextFiles(gemini manifestDoc, parts []skillfs.File) []string {
	if raw, ok := gemini["contextFileName"]; ok {
		var one string
		var many []string
		if json.Unmarshal(raw, &one) == nil && one != "" {
			return []string{path.Clean(one)}
		}
		if json.Unmarshal(raw, &many) == nil {
			for i := range many {
				many[i] = path.Clean(many[i])
			}
			return many
		}
	}
	if _, ok := skillfs.Find(parts, geminiContextFile); ok {
		return []string{geminiContextFile}
	}
	return nil
}

// The catalogs' JSON forms, fields in the order the agents' docs show them.
type (
	// ownedCatalog is Claude Code's, GitHub Copilot's and Cursor's.
	ownedCatalog struct {
		Name     string          `json:"name"`
		Owner    catalogOwner    `json:"owner"`
		Metadata catalogMetadata `json:"metadata"`
		Plugins  []any           `json:"plugins"`
	}
	catalogOwner struct {
		Name string `json:"name"`
	}
	catalogMetadata struct {
		Description string `json:"description"`
	}
	claudeEntry struct {
		Name        string `json:"name"`
		Source      string `json:"source"`
		Version     string `json:"version"`
		Description string `json:"description"`
	}
	copilotEntry struct {
		Name        string `json:"name"`
		Source      string `json:"source"`
		Description string `json:"description"`
		Version     string `json:"version"`
	}
	cursorEntry struct {
		Name        string `json:"name"`
		Source      string `json:"source"`
		Description string `json:"description"`
	}
	codexCatalog struct {
		Name      string         `json:"name"`
		Interface codexInterface `json:"interface"`
		Plugins   []any          `json:"plugins"`
	}
	codexInterface struct {
		DisplayName string `json:"displayName"`
	}
	codexEntry struct {
		Name     string      `json:"name"`
		Source   codexSource `json:"source"`
		Policy   codexPolicy `json:"policy"`
		Category string      `json:"category"`
	}
	codexSource struct {
		Source string `json:"source"`
		Path   string `json:"path"`
	}
	codexPolicy struct {
		Installation   string `json:"installation"`
		Authentication string `json:"authentication"`
	}
)
