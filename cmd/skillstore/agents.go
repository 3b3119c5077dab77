package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"
)

// agentPreset is an agent skillstore knows by name: where it reads skills
// for one user and inside a project (ECOSYSTEM.md), how to tell it is
// installed, and the budget of its always-loaded skills list.
type agentPreset struct {
	name    string
	agent   string   // the agent's own name, for people
	user    string   // the user-scope folder, relative to $HOME
	project string   // the project-scope folder, relative to the project root
	markers []string // folders under $HOME whose presence means the agent is used here
	budget  contextBudget
}

// agentPresets lists the agents 'target add' and 'target detect' know, in
// the order detect proposes them.
var agentPresets = []agentPreset{
	{name: "claude", agent: "Claude Code", user: ".claude/skills", project: ".claude/skills",
		markers: []string{".claude"}, budget: claudeBudget},
	{name: "codex", agent: "Codex", user: ".agents/skills", project: ".agents/skills",
		markers: []string{".codex", ".agents"}, budget: codexBudget},
	{name: "agents", agent: "agents reading .agents/skills (Codex, Cursor, Gemini CLI, ...)", user: ".agents/skills", project: ".agents/skills",
		budget: codexBudget},
}

func findPreset(name string) (agentPreset, bool) {
	for _, p := range agentPresets {
		if p.name == name {
			return p, true
		}
	}
	return agentPreset{}, false
}

func presetNames() []string {
	var out []string
	for _, p := range agentPresets {
		out = append(out, p.name)
	}
	return out
}

// presetFor returns the preset whose user or project folder dir is, for
// the context budget of a target added by path.
func presetFor(name, dir string) (agentPreset, bool) {
	if p, ok := findPreset(name); ok {
		return p, true
	}
	slash := filepath.ToSlash(dir)
	for _, p := range agentPresets {
		if strings.HasSuffix(slash, "/"+p.project) {
			return p, true
		}
	}
	return agentPreset{}, false
}

// userDir is the preset's user-scope folder on this machine.
func (p agentPreset) userDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("target %s: %w", p.name, err)
	}
	return filepath.Join(home, filepath.FromSlash(p.user)), nil
}

// projectRoot is the root of the project holding the working directory:
// the top of its git work tree (asked of the real git CLI), else the
// working directory itself.
func projectRoot(c *cli.Context) (string, error) {
	if top, err := gitOutput(c, "rev-parse", "--show-toplevel"); err == nil && top != "" {
		return filepath.Clean(top), nil
	}
	return os.Getwd()
}

var unsafeNameChars = regexp.MustCompile(`[^a-z0-9._-]+`)

// projectTargetName names a project's target by default: the project
// folder's name and the preset ("myapp-claude").
func projectTargetName(root string, p agentPreset) string {
	base := strings.Trim(unsafeNameChars.ReplaceAllString(strings.ToLower(filepath.Base(root)), "-"), "-.")
	if base == "" {
		base = "project"
	}
	return base + "-" + p.name
}
