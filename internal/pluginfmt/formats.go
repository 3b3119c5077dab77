package pluginfmt

import (
	"fmt"
	"path"
	"strings"
)

// Dialect names an agent's plugin format: the agent whose manifests a
// plugin or marketplace was read through.
type Dialect string

// The dialects [Read] knows, one per agent that publishes plugins.
const (
	DialectClaude       Dialect = "claude"        // Claude Code
	DialectCodex        Dialect = "codex"         // OpenAI Codex
	DialectCursor       Dialect = "cursor"        // Cursor
	DialectCopilot      Dialect = "copilot"       // GitHub Copilot (CLI, VS Code)
	DialectAgentPlugins Dialect = "agent-plugins" // the Agent Plugins spec (agent-plugins.org)
	DialectGemini       Dialect = "gemini"        // Gemini CLI extensions
)

// marketplaceFormat is one agent's marketplace file. Every agent's has
// the same core, which is all skillstore reads: a "name", and
// "plugins": [{"name", "source", "version", "skills"}], where a source is
// a path relative to the repository's top or a source object (Codex's
// {"source": "local", "path": ...}, Claude Code's github/url/git-subdir).
type marketplaceFormat struct {
	File    string
	Dialect Dialect
}

// marketplaceFormats are the marketplace files [Read] looks for, in the
// order they win when a repository ships several and they disagree about
// a plugin (two names for one folder).
var marketplaceFormats = []marketplaceFormat{
	{MarketplaceManifest, DialectClaude},
	{".agents/plugins/marketplace.json", DialectCodex},
	{".cursor-plugin/marketplace.json", DialectCursor},
	{".github/plugin/marketplace.json", DialectCopilot},
}

// pluginFormat is one agent's plugin manifest, relative to the plugin's
// root. All of them have "name" and "version"; those that have
// "skills" (a path or a list of paths) name the skill folders with it,
// and the others keep them in skills/, which is also the default.
// Claude Code's also says "defaultEnabled" and "dependencies", as its
// marketplace entries may (read into PluginLayout, see dependencies.go);
// the entry's win.
type pluginFormat struct {
	File    string
	Kind    Kind
	Dialect Dialect
	// loose is set for a file name other tools use too (a plugin.json at
	// a repository's top): one that does not parse as a manifest with a
	// "name" is not taken for one, and no error.
	loose bool
}

// The plugin layouts of the agents besides Claude Code and Codex.
const (
	KindCursorPlugin    Kind = "cursor-plugin"    // .cursor-plugin/plugin.json
	KindAgentPlugin     Kind = "agent-plugin"     // plugin.json at the root (Agent Plugins spec; Copilot's catalogs)
	KindGeminiExtension Kind = "gemini-extension" // gemini-extension.json
)

// pluginFormats are the plugin manifests [Read] looks for, in the order
// they win when a plugin ships several.
var pluginFormats = []pluginFormat{
	{ClaudePluginManifest, KindClaudePlugin, DialectClaude, false},
	{CodexPluginManifest, KindCodexPlugin, DialectCodex, false},
	{".cursor-plugin/plugin.json", KindCursorPlugin, DialectCursor, false},
	{"plugin.json", KindAgentPlugin, DialectAgentPlugins, true},
	{"gemini-extension.json", KindGeminiExtension, DialectGemini, false},
}

// Dialects lists every dialect [Read] knows, in the order they win.
func Dialects() []Dialect {
	var out []Dialect
	seen := map[Dialect]bool{}
	for _, f := range pluginFormats {
		if !seen[f.Dialect] {
			seen[f.Dialect] = true
			out = append(out, f.Dialect)
		}
	}
	for _, f := range marketplaceFormats {
		if !seen[f.Dialect] {
			seen[f.Dialect] = true
			out = append(out, f.Dialect)
		}
	}
	return out
}

// CheckDialect refuses a dialect name [Read] does not know, listing those
// it does.
func CheckDialect(d Dialect) error {
	for _, k := range Dialects() {
		if k == d {
			return nil
		}
	}
	return fmt.Errorf("unknown dialect %q (dialects: %s)", d, JoinDialects(Dialects()))
}

// JoinDialects names ds in one line: "claude, codex, cursor".
func JoinDialects(ds []Dialect) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = string(d)
	}
	return strings.Join(names, ", ")
}

// marketplacesOf are the marketplace formats of dialect d ("" all).
func marketplacesOf(d Dialect) []marketplaceFormat {
	return ofDialect(marketplaceFormats, d, func(f marketplaceFormat) Dialect { return f.Dialect })
}

// pluginsOf are the plugin manifest formats of dialect d ("" all).
func pluginsOf(d Dialect) []pluginFormat {
	return ofDialect(pluginFormats, d, func(f pluginFormat) Dialect { return f.Dialect })
}

// ofDialect keeps the rows of dialect d, or every row when d is "".
func ofDialect[T any](rows []T, d Dialect, dialect func(T) Dialect) []T {
	if d == "" {
		return rows
	}
	var out []T
	for _, r := range rows {
		if dialect(r) == d {
			out = append(out, r)
		}
	}
	return out
}

// MarketplaceFiles are the marketplace files of every dialect.
func MarketplaceFiles() []string {
	out := make([]string, len(marketplaceFormats))
	for i, f := range marketplaceFormats {
		out[i] = f.File
	}
	return out
}

// pluginManifestFiles are the plugin manifests of every dialect.
func pluginManifestFiles() []string {
	out := make([]string, len(pluginFormats))
	for i, f := range pluginFormats {
		out[i] = f.File
	}
	return out
}

// ManifestFiles are the files that make a folder a plugin or a
// marketplace in some agent's dialect: the marketplace files, then the
// plugin manifests.
func ManifestFiles() []string {
	return append(MarketplaceFiles(), pluginManifestFiles()...)
}

// ManifestDirs are the folders (top-level names) that hold manifests and
// never skills: .claude-plugin, .codex-plugin, .cursor-plugin, and the
// folder of a marketplace file under .agents or .github.
func ManifestDirs() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range ManifestFiles() {
		dir, _, nested := strings.Cut(f, "/")
		if nested && !seen[dir] && strings.HasSuffix(dir, "-plugin") {
			seen[dir] = true
			out = append(out, dir)
		}
	}
	return out
}

// IsManifest reports whether p, relative to a plugin's or source's root,
// is one of the manifest files of some dialect.
func IsManifest(p string) bool {
	for _, f := range ManifestFiles() {
		if p == f {
			return true
		}
	}
	return false
}

// IsMarketplaceFile reports whether p, relative to a source's root, is a
// marketplace file of some dialect.
func IsMarketplaceFile(p string) bool {
	for _, f := range marketplaceFormats {
		if p == f.File {
			return true
		}
	}
	return false
}

// HasMarketplace reports whether the source's top holds a marketplace
// file of some dialect (the source is then read as a marketplace).
func HasMarketplace(fsys PluginFS) bool {
	for _, f := range marketplaceFormats {
		if _, err := fsys.Lstat(f.File); err == nil {
			return true
		}
	}
	return false
}

// HasPluginManifest reports whether the folder dir of fsys holds a plugin
// manifest of some dialect other than the loose ones (a plugin.json that
// any tool may write): a plugin of its own.
func HasPluginManifest(fsys PluginFS, dir string) bool {
	for _, f := range pluginFormats {
		if f.loose {
			continue
		}
		if info, err := fsys.Lstat(path.Join(dir, f.File)); err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}
