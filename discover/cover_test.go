package discover

import (
	"reflect"
	"strings"
	"testing"
)

func agentsNamed(t *testing.T, names ...string) []Agent {
	t.Helper()
	var out []Agent
	for _, n := range names {
		a, ok := FindAgent(n)
		if !ok {
			t.Fatalf("no agent %s", n)
		}
		out = append(out, a)
	}
	return out
}

// describe renders a cover as "dir=preset(reaches)" and "agent:dir+dir".
func describe(c Cover) (add, twice []string) {
	for _, f := range c.Add {
		var names []string
		for _, a := range f.Reaches {
			names = append(names, a.Name)
		}
		add = append(add, f.Dir+"="+f.Preset.Name+"("+strings.Join(names, ",")+")")
	}
	for _, tw := range c.Twice {
		twice = append(twice, tw.Agent.Name+":"+strings.Join(tw.Dirs, "+"))
	}
	return add, twice
}

// The cover is the fewest folders that reach every agent found, none
// read twice when that can be avoided; existing targets count; when no
// choice avoids a double read, the one with the fewest is proposed and
// the agents are named.
func TestCoverAgents(t *testing.T) {
	cases := []struct {
		name     string
		found    []string
		existing []string
		project  bool
		add      []string
		twice    []string
	}{
		{name: "claude and codex", found: []string{"claude", "codex"},
			add: []string{".claude/skills=claude(claude)", ".agents/skills=codex(codex)"}},
		// Cursor reads ~/.claude/skills: one folder reaches both.
		{name: "claude and cursor", found: []string{"claude", "cursor"},
			add: []string{".claude/skills=claude(claude,cursor)"}},
		// Copilot, Gemini CLI and OpenCode share ~/.agents/skills.
		{name: "agents folder", found: []string{"copilot", "gemini", "opencode"},
			add: []string{".agents/skills=agents(copilot,gemini,opencode)"}},
		{name: "gemini alone", found: []string{"gemini"}, add: []string{".gemini/skills=gemini(gemini)"}},
		// Claude Code needs ~/.claude/skills and Codex ~/.agents/skills;
		// Copilot and OpenCode read both, whatever the choice.
		{name: "every agent", found: []string{"claude", "codex", "cursor", "copilot", "gemini", "opencode"},
			add:   []string{".claude/skills=claude(claude,cursor,copilot,opencode)", ".agents/skills=codex(codex,copilot,gemini,opencode)"},
			twice: []string{"copilot:.claude/skills+.agents/skills", "opencode:.claude/skills+.agents/skills"}},
		// An existing target at ~/.claude/skills already reaches Cursor.
		{name: "existing", found: []string{"claude", "cursor", "gemini"}, existing: []string{".claude/skills"},
			add: []string{".gemini/skills=gemini(gemini)"}},
		// In a project Cursor reads .agents/skills, Copilot .github/skills.
		{name: "project", found: []string{"cursor", "codex", "copilot"}, project: true,
			add: []string{".agents/skills=codex(cursor,codex,copilot)"}},
		// Both read .claude/skills and .agents/skills in a project; the
		// folder more agents read is proposed.
		{name: "project shared", found: []string{"cursor", "copilot"}, project: true,
			add: []string{".agents/skills=agents(cursor,copilot)"}},
		{name: "nothing found", found: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			add, twice := describe(CoverAgents(agentsNamed(t, c.found...), c.existing, c.project))
			if !reflect.DeepEqual(add, c.add) || !reflect.DeepEqual(twice, c.twice) {
				t.Errorf("add %q twice %q, want %q %q", add, twice, c.add, c.twice)
			}
		})
	}
}
