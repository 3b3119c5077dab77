package safety

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// A plugin's parts (its files besides its skills) can run code on the
// user's machine without the agent deciding to: Claude Code runs a hook's
// command on the hook's event, and starts every MCP and LSP server a
// plugin declares. [PluginFindings] grades those declarations.

// The files of a plugin's parts that declare what runs (paths relative to
// the plugin's root). A manifest may also declare hooks, MCP and LSP
// servers inline, or name other files that do.
const (
	HooksFile          = "hooks/hooks.json"
	MCPFile            = ".mcp.json"
	LSPFile            = ".lsp.json"
	claudeManifestFile = ".claude-plugin/plugin.json"
	codexManifestFile  = ".codex-plugin/plugin.json"
	pluginRootVariable = "${CLAUDE_PLUGIN_ROOT}/"
)

// IsPluginConfig reports whether p is a file of a plugin's parts that
// declares code to run (hooks, MCP or LSP servers) or names files that do
// (the manifests): [PluginFindings] needs the previous content of these.
func IsPluginConfig(p string) bool {
	switch p {
	case HooksFile, MCPFile, LSPFile, claudeManifestFile, codexManifestFile:
		return true
	}
	return false
}

// runnable is one thing a plugin's parts make run: a hook command or a
// server's command line, under a key that stays put while it is unchanged.
type runnable struct {
	kind    string // "hook", "MCP server", "LSP server"
	key     string // event and matcher of a hook, name of a server
	command string // what runs
	file    string // where it is declared
}

func (r runnable) id() string { return r.kind + "\x00" + r.key + "\x00" + r.command }

// PluginFindings grades a plugin's parts against its previous version
// (nil for a first mirror): a hook command or an MCP or LSP server that is
// new or changed is a medium-risk finding, high when it pipes a download
// into an interpreter; a script a hook command runs that is new or changed
// is medium; a declaration file that does not parse is medium (what it
// declares cannot be checked). files need Data; previous needs Data for
// the files IsPluginConfig names (IDs for the rest).
func PluginFindings(files, previous []skillfs.File) []Finding {
	now, bad := runnables(files)
	before, _ := runnables(previous)
	old := map[string]bool{}
	oldKeys := map[string]bool{}
	for _, r := range before {
		old[r.id()] = true
		oldKeys[r.kind+"\x00"+r.key] = true
	}
	findings := bad
	for _, r := range now {
		if old[r.id()] {
			continue
		}
		verb := "added"
		if oldKeys[r.kind+"\x00"+r.key] {
			verb = "changed"
		}
		level := RiskMedium
		if pipeToShell().MatchString(r.command) {
			level = RiskHigh
		}
		msg := fmt.Sprintf("%s %s (%s): runs %s", r.kind, verb, r.key, clip(r.command))
		if level == RiskHigh {
			msg += "; it downloads code and pipes it into an interpreter"
		}
		rule := rulePlugin.ID
		if level == RiskHigh {
			rule = rulePipe.ID
		}
		findings = append(findings, Finding{Level: level, Path: r.file, Message: msg, Rule: rule})
	}
	findings = append(findings, hookScripts(now, files, previous)...)
	sort.SliceStable(findings, func(i, j int) bool {
		if findings[i].Path != findings[j].Path {
			return findings[i].Path < findings[j].Path
		}
		return findings[i].Message < findings[j].Message
	})
	return findings
}

// hookScripts flags files of the parts that a hook command runs (named as
// ${CLAUDE_PLUGIN_ROOT}/PATH) and that are new or changed.
func hookScripts(now []runnable, files, previous []skillfs.File) []Finding {
	cur, prev := skillfs.Index(files), skillfs.Index(previous)
	seen := map[string]bool{}
	var out []Finding
	for _, r := range now {
		for _, p := range referencedPaths(r.command) {
			f, ok := cur[p]
			if !ok || seen[p] {
				continue
			}
			seen[p] = true
			old, existed := prev[p]
			if existed && old.ID == f.ID && !old.ID.IsZero() && old.Mode == f.Mode {
				continue
			}
			verb := "added"
			if existed {
				verb = "changed"
			}
			out = append(out, Finding{Level: RiskMedium, Path: p, Message: fmt.Sprintf("script run by %s (%s) %s", r.kind, r.key, verb), Rule: rulePlugin.ID})
		}
	}
	return out
}

// referencedPaths are the plugin files a command names through
// ${CLAUDE_PLUGIN_ROOT}.
func referencedPaths(command string) []string {
	var out []string
	for rest := command; ; {
		i := strings.Index(rest, pluginRootVariable)
		if i < 0 {
			return out
		}
		rest = rest[i+len(pluginRootVariable):]
		end := strings.IndexAny(rest, " \t\"'`;|&)<>\n")
		if end < 0 {
			end = len(rest)
		}
		if p := path.Clean(rest[:end]); skillfs.CheckPath(p) == nil {
			out = append(out, p)
		}
	}
}

// runnables lists what files declare: hooks in hooks/hooks.json, servers
// in .mcp.json and .lsp.json, and what the manifests declare inline or in
// the files they name. Files that do not parse are findings.
func runnables(files []skillfs.File) ([]runnable, []Finding) {
	idx := skillfs.Index(files)
	var out []runnable
	var bad []Finding
	parse := func(p string, into func(file string, raw json.RawMessage) error, wrapped string) {
		f, ok := idx[p]
		if !ok || f.Data == nil {
			return
		}
		raw := json.RawMessage(f.Data)
		if wrapped != "" {
			var top map[string]json.RawMessage
			if err := json.Unmarshal(f.Data, &top); err != nil {
				bad = append(bad, unparsed(p, err))
				return
			}
			if inner, ok := top[wrapped]; ok {
				raw = inner
			}
		}
		if err := into(p, raw); err != nil {
			bad = append(bad, unparsed(p, err))
		}
	}
	hooks := func(file string, raw json.RawMessage) error {
		rs, err := hookRunnables(file, raw)
		out = append(out, rs...)
		return err
	}
	servers := func(kind string) func(string, json.RawMessage) error {
		return func(file string, raw json.RawMessage) error {
			rs, err := serverRunnables(kind, file, raw)
			out = append(out, rs...)
			return err
		}
	}
	parse(HooksFile, hooks, "hooks")
	parse(MCPFile, servers("MCP server"), "mcpServers")
	parse(LSPFile, servers("LSP server"), "lspServers")
	for _, m := range []string{claudeManifestFile, codexManifestFile} {
		f, ok := idx[m]
		if !ok || f.Data == nil {
			continue
		}
		var man map[string]json.RawMessage
		if err := json.Unmarshal(f.Data, &man); err != nil {
			bad = append(bad, unparsed(m, err))
			continue
		}
		for field, fn := range map[string]func(string, json.RawMessage) error{
			"hooks": hooks, "mcpServers": servers("MCP server"), "lspServers": servers("LSP server"),
		} {
			raw, ok := man[field]
			if !ok {
				continue
			}
			var named []string
			if json.Unmarshal(raw, &named) != nil {
				var one string
				if json.Unmarshal(raw, &one) == nil {
					named = []string{one}
				}
			}
			if named == nil {
				if err := fn(m, raw); err != nil {
					bad = append(bad, unparsed(m, fmt.Errorf("%q: %w", field, err)))
				}
				continue
			}
			// Paths the manifest names, relative to the plugin root.
			for _, n := range named {
				p := path.Clean(strings.TrimPrefix(n, "./"))
				if p == HooksFile || p == MCPFile || p == LSPFile {
					continue // parsed above
				}
				wrap := map[string]string{"hooks": "hooks", "mcpServers": "mcpServers", "lspServers": "lspServers"}[field]
				parse(p, fn, wrap)
			}
		}
	}
	return out, bad
}

func unparsed(p string, err error) Finding {
	return Finding{Level: RiskMedium, Path: p, Message: fmt.Sprintf("does not parse (what it declares to run cannot be checked): %v", err), Rule: ruleUnparsed.ID}
}

// hookRunnables reads Claude Code's hook configuration: event name → list
// of {matcher, hooks: [{type, command}]}.
func hookRunnables(file string, raw json.RawMessage) ([]runnable, error) {
	var events map[string]json.RawMessage
	if err := json.Unmarshal(raw, &events); err != nil {
		return nil, err
	}
	if inner, ok := events["hooks"]; ok && len(inner) > 0 && inner[0] == '{' {
		return hookRunnables(file, inner) // hooks.json's form, inline
	}
	var out []runnable
	for event, list := range events {
		var groups []struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if len(list) == 0 || list[0] != '[' {
			continue // not an event ("description" and the like)
		}
		if err := json.Unmarshal(list, &groups); err != nil {
			return nil, fmt.Errorf("hook event %q: %w", event, err)
		}
		for _, g := range groups {
			key := event
			if g.Matcher != "" {
				key += " " + g.Matcher
			}
			for _, h := range g.Hooks {
				if h.Command == "" {
					continue
				}
				out = append(out, runnable{kind: "hook", key: key, command: h.Command, file: file})
			}
		}
	}
	sortRunnables(out)
	return out, nil
}

// serverRunnables reads MCP or LSP server declarations: name → {command,
// args} (a local process) or {url} (a remote server).
func serverRunnables(kind, file string, raw json.RawMessage) ([]runnable, error) {
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil {
		return nil, err
	}
	var out []runnable
	for name, decl := range servers {
		var s struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
			URL     string   `json:"url"`
		}
		if len(decl) == 0 || decl[0] != '{' {
			continue // not a server ("$schema" and the like)
		}
		if err := json.Unmarshal(decl, &s); err != nil {
			return nil, fmt.Errorf("%s %q: %w", kind, name, err)
		}
		cmd := strings.TrimSpace(strings.Join(append([]string{s.Command}, s.Args...), " "))
		if cmd == "" {
			cmd = s.URL
		}
		if cmd == "" {
			continue
		}
		out = append(out, runnable{kind: kind, key: name, command: cmd, file: file})
	}
	sortRunnables(out)
	return out, nil
}

func sortRunnables(rs []runnable) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].id() < rs[j].id() })
}

// clip shortens a command for a finding's message, quoted.
func clip(s string) string {
	const max = 120
	if len(s) > max {
		s = s[:max] + "…"
	}
	return fmt.Sprintf("%q", s)
}
