package target

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// TestFlavorTable: every row is whole, its files are files skillstore
// reads back (pluginfmt's own table), and --kind and its help come from
// the rows.
func TestFlavorTable(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range flavors {
		if seen[f.kind] || f.agent == "" || f.dialect == "" || f.place == nil || f.fixManifest == nil || len(f.steps) == 0 || f.update == "" {
			t.Errorf("%s: incomplete row %+v", f.kind, f)
		}
		seen[f.kind] = true
		if !pluginfmt.IsManifest(f.manifest) {
			t.Errorf("%s: pluginfmt does not read %s as a plugin manifest", f.kind, f.manifest)
		}
		if (f.catalog == "") != (f.catalogDoc == nil) || (f.catalog == "") != (f.entry == nil) {
			t.Errorf("%s: a catalog file needs its document and entries, and only then", f.kind)
		}
		if f.catalog != "" && !pluginfmt.IsMarketplaceFile(f.catalog) {
			t.Errorf("%s: pluginfmt does not read %s as a marketplace", f.kind, f.catalog)
		}
		for _, k := range []string{"name", "version", "description"} {
			if !slices.Contains(f.keys, k) {
				t.Errorf("%s: manifest keys lack %s", f.kind, k)
			}
		}
		if !slices.Contains(Kinds, f.kind) || !strings.Contains(KindsHelp(), f.kind) {
			t.Errorf("%s: not in Kinds or its help", f.kind)
		}
		if _, err := flavorOf(f.kind); !err {
			t.Errorf("%s: flavorOf does not find it", f.kind)
		}
	}
	if len(Kinds) != len(flavors)+1 || Kinds[0] != "skills" {
		t.Errorf("Kinds = %v", Kinds)
	}
}

// TestPlaceParts is the table of where a part of a plugin that came in
// one agent's format goes in another's, or why it cannot go.
func TestPlaceParts(t *testing.T) {
	f := func(kind string) *flavor { fl, _ := flavorOf(kind); return fl }
	claude, codex, copilot, cursor, gemini := f(KindClaudeMarketplace), f(KindCodexMarketplace), f(KindCopilotMarketplace), f(KindCursorMarketplace), f(KindGeminiExtensions)
	for _, c := range []struct {
		from, to *flavor
		part     string
		dst, why string // dst "" with why: left out, why holding the text
	}{
		// Its own format: every part stays.
		{claude, claude, "hooks/hooks.json", "hooks/hooks.json", ""},
		{copilot, copilot, "hooks.json", "hooks.json", ""},
		{gemini, gemini, "commands/go.toml", "commands/go.toml", ""},
		// Agents: NAME.agent.md for Copilot, NAME.md for the others.
		{claude, copilot, "agents/reviewer.md", "agents/reviewer.agent.md", ""},
		{copilot, claude, "agents/reviewer.agent.md", "agents/reviewer.md", ""},
		{copilot, cursor, "agents/reviewer.agent.md", "agents/reviewer.md", ""},
		{copilot, gemini, "agents/reviewer.agent.md", "agents/reviewer.md", ""},
		{copilot, codex, "agents/reviewer.agent.md", "", "Codex's plugins have no agents"},
		// MCP servers: .mcp.json, Cursor's mcp.json; Gemini keeps them in its manifest.
		{cursor, claude, "mcp.json", ".mcp.json", ""},
		{claude, cursor, ".mcp.json", "mcp.json", ""},
		{cursor, codex, "mcp.json", ".mcp.json", ""},
		{claude, gemini, ".mcp.json", "", "gemini-extension.json's mcpServers"},
		// Hooks and LSP servers are each agent's own format.
		{claude, copilot, "hooks/hooks.json", "", "hooks in Claude Code's format, which GitHub Copilot does not read"},
		{copilot, claude, "hooks.json", "", "hooks in GitHub Copilot's format, which Claude Code does not read"},
		{claude, cursor, ".lsp.json", "", "LSP servers in Claude Code's format"},
		// Commands: Markdown for Claude Code and Cursor, TOML for Gemini CLI.
		{claude, cursor, "commands/go.md", "commands/go.md", ""},
		{claude, gemini, "commands/go.md", "", "TOML files"},
		{gemini, claude, "commands/go.toml", "", "Claude Code's plugins have no TOML commands"},
		{claude, copilot, "commands/go.md", "", "Agent Plugins manifest cannot hold"},
		// Cursor's rules; Gemini CLI's context file.
		{cursor, claude, "rules/style.mdc", "", "Claude Code's plugins have no rules"},
		{claude, cursor, "rules/style.mdc", "rules/style.mdc", ""},
		{gemini, claude, "GEMINI.md", "", "no context files"},
		{claude, gemini, "GEMINI.md", "GEMINI.md", ""},
		// Other files: kept, except by Codex, which reads assets/ only.
		{claude, copilot, "scripts/run.sh", "scripts/run.sh", ""},
		{claude, codex, "scripts/run.sh", "", "Codex reads a plugin's skills, .mcp.json and assets/ only"},
		{claude, codex, "assets/logo.svg", "assets/logo.svg", ""},
	} {
		parts := []skillfs.File{{Path: c.part, ID: skillfs.BlobID([]byte(c.part))}}
		files, left := placeParts("p", parts, c.to, c.from, nil, []string{"GEMINI.md"})
		name := c.from.kind + " -> " + c.to.kind + ": " + c.part
		switch {
		case c.dst != "" && (len(files) != 1 || files[0].Path != c.dst || len(left) != 0):
			t.Errorf("%s: got %v, left out %v; want %s", name, files, left, c.dst)
		case c.dst == "" && (len(files) != 0 || len(left) != 1 || !strings.Contains(left[0].Why, c.why) || left[0].Paths[0] != c.part):
			t.Errorf("%s: got %v, left out %+v; want it left out because %q", name, files, left, c.why)
		}
	}
	// Two parts for one path: the one already there stays, the other is named.
	parts := []skillfs.File{{Path: "agents/a.agent.md"}, {Path: "agents/a.md"}, {Path: "plugin.json"}}
	files, left := placeParts("p", parts, copilot, claude, nil, nil)
	if len(files) != 1 || files[0].Path != "agents/a.agent.md" || len(left) != 2 ||
		left[0].Paths[0] != "plugin.json" || !strings.Contains(left[1].Why, "agents/a.agent.md holds agents/a.agent.md already") {
		t.Errorf("collisions: %v, left out %+v", files, left)
	}
}

// TestExportReadsBack exports the fixture plugin in each format and reads
// the folder back with the reader plugin add uses: the same plugin and
// skills, in the dialect of the target's agent.
func TestExportReadsBack(t *testing.T) {
	ctx := context.Background()
	s, _, tmp := marketplaceStore(t)
	for _, f := range flavors {
		tg := Target{Name: strings.TrimSuffix(f.kind, "-marketplace"), Dir: filepath.Join(tmp, f.kind), Kind: f.kind}
		if err := Add(ctx, s, tg); err != nil {
			t.Fatal(err)
		}
		out, err := Export(ctx, s, []Target{tg}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", f.kind, err)
		}
		root := tg.Dir
		if f.catalog == "" {
			root = filepath.Join(tg.PluginsDir(), "superpowers")
		}
		l, err := pluginfmt.Read(os.DirFS(root).(pluginfmt.PluginFS), pluginfmt.Options{})
		if err != nil {
			t.Fatalf("%s: read back: %v", f.kind, err)
		}
		var skills []string
		var p *pluginfmt.PluginLayout
		for i := range l.Plugins {
			if l.Plugins[i].Name == "superpowers" {
				p = &l.Plugins[i]
			}
		}
		if p == nil {
			t.Fatalf("%s: read back %+v", f.kind, l)
		}
		for _, sk := range p.Skills {
			skills = append(skills, sk.Name)
		}
		if strings.Join(skills, ",") != "brainstorming,executing-plans,writing-plans" {
			t.Errorf("%s: skills read back %v", f.kind, skills)
		}
		if !slices.Contains(append(l.Dialects, p.Dialects...), f.dialect) && !(f.dialect == pluginfmt.DialectCopilot && slices.Contains(p.Dialects, pluginfmt.DialectAgentPlugins)) {
			t.Errorf("%s: read back as %v / %v", f.kind, l.Dialects, p.Dialects)
		}
		// The manifest is valid JSON naming the plugin with the content's version.
		var m map[string]any
		data, _ := os.ReadFile(filepath.Join(tg.PluginsDir(), "superpowers", filepath.FromSlash(f.manifest)))
		if err := json.Unmarshal(data, &m); err != nil || m["name"] != "superpowers" || !strings.HasPrefix(m["version"].(string), "4.1.0+skillstore.") {
			t.Errorf("%s: manifest %s (%v)", f.kind, data, err)
		}
		// Claude Code's hooks are said only in its own format, and named otherwise.
		named := false
		for _, lo := range out[0].LeftOut {
			named = named || slices.Contains(lo.Paths, "hooks/hooks.json")
		}
		if _, err := os.Stat(filepath.Join(tg.PluginsDir(), "superpowers", "hooks", "hooks.json")); (err == nil) != (f.kind == KindClaudeMarketplace) || named == (err == nil) {
			t.Errorf("%s: hooks/hooks.json written: %v, named as left out: %v", f.kind, err == nil, named)
		}
	}
}
