package mcpserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// ClientConfig is what one agent needs to start the server: the command
// that adds it (when the agent has one), else the snippet to merge into
// its configuration file. Each comes from the agent's own documentation,
// named in Doc.
type ClientConfig struct {
	Agent   string `json:"agent"`
	File    string `json:"file"`              // where the snippet goes
	Snippet string `json:"snippet"`           // the part of the file to merge in
	Command string `json:"command,omitempty"` // the agent's own command that adds it
	Doc     string `json:"doc"`               // where the format is documented
}

// clientConfigs builds each agent's configuration for the server started
// as argv (argv[0] the skillstore binary, then "mcp" and its flags).
var clientConfigs = map[string]func(name string, argv []string) ClientConfig{
	"claude": func(name string, argv []string) ClientConfig {
		return ClientConfig{File: ".mcp.json (project) or ~/.claude.json (claude mcp add --scope user)",
			Snippet: jsonSnippet(map[string]any{"mcpServers": map[string]any{name: map[string]any{"command": argv[0], "args": argv[1:]}}}),
			Command: "claude mcp add " + name + " -- " + shellWords(argv),
			Doc:     "https://code.claude.com/docs/en/mcp"}
	},
	"codex": func(name string, argv []string) ClientConfig {
		return ClientConfig{File: "~/.codex/config.toml (or .codex/config.toml in a trusted project)",
			Snippet: fmt.Sprintf("[mcp_servers.%s]\ncommand = %s\nargs = %s\n", name, tomlString(argv[0]), tomlList(argv[1:])),
			Command: "codex mcp add " + name + " -- " + shellWords(argv),
			Doc:     "https://developers.openai.com/codex/mcp"}
	},
	"cursor": func(name string, argv []string) ClientConfig {
		return ClientConfig{File: "~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
			Snippet: jsonSnippet(map[string]any{"mcpServers": map[string]any{name: map[string]any{"command": argv[0], "args": argv[1:]}}}),
			Doc:     "https://cursor.com/docs/context/mcp"}
	},
	"gemini": func(name string, argv []string) ClientConfig {
		return ClientConfig{File: "~/.gemini/settings.json (or .gemini/settings.json in a project)",
			Snippet: jsonSnippet(map[string]any{"mcpServers": map[string]any{name: map[string]any{"command": argv[0], "args": argv[1:]}}}),
			Command: "gemini mcp add --scope user " + name + " " + shellWords(argv),
			Doc:     "https://geminicli.com/docs/tools/mcp-server"}
	},
	"vscode": func(name string, argv []string) ClientConfig {
		return ClientConfig{File: ".vscode/mcp.json (GitHub Copilot in VS Code; or the user profile's mcp.json)",
			Snippet: jsonSnippet(map[string]any{"servers": map[string]any{name: map[string]any{"type": "stdio", "command": argv[0], "args": argv[1:]}}}),
			Doc:     "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration"}
	},
	"opencode": func(name string, argv []string) ClientConfig {
		return ClientConfig{File: "opencode.json in a project (or ~/.config/opencode/opencode.json)",
			Snippet: jsonSnippet(map[string]any{"mcp": map[string]any{name: map[string]any{"type": "local", "command": argv, "enabled": true}}}),
			Doc:     "https://opencode.ai/docs/mcp-servers"}
	},
}

// ClientAgents lists the agents ClientConfigFor knows, sorted.
func ClientAgents() []string {
	out := make([]string, 0, len(clientConfigs))
	for a := range clientConfigs {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// ClientConfigFor returns agent's configuration for a server named name
// started as argv.
func ClientConfigFor(agent, name string, argv []string) (ClientConfig, error) {
	mk, ok := clientConfigs[agent]
	if !ok {
		return ClientConfig{}, fmt.Errorf("no configuration known for agent %q: use one of %s", agent, strings.Join(ClientAgents(), ", "))
	}
	if len(argv) == 0 {
		return ClientConfig{}, fmt.Errorf("no command to start the server")
	}
	c := mk(name, argv)
	c.Agent = agent
	return c, nil
}

func jsonSnippet(v any) string {
	data, _ := json.MarshalIndent(v, "", "  ")
	return string(data) + "\n"
}

func tomlString(s string) string {
	data, _ := json.Marshal(s) // a TOML basic string escapes as JSON does for these
	return string(data)
}

func tomlList(ss []string) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// shellWords quotes argv for a POSIX shell where a word needs it.
func shellWords(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@") == "" {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
