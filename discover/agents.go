package discover

import (
	"strings"
	"sync"
)

// What each agent that loads skills documents of a SKILL.md frontmatter:
// the keys it reads, and where that is written. The lenient policy
// ([Lenient]) accepts every key listed here without a word; --strict
// ([Strict]) names the agents of a key that is not the spec's.
//
//	Agent Skills spec  name description license compatibility metadata allowed-tools
//	                   https://agentskills.io/specification
//	Claude Code        name description when_to_use argument-hint arguments
//	                   disable-model-invocation user-invocable allowed-tools
//	                   disallowed-tools model effort context agent background
//	                   hooks paths shell metadata license compatibility
//	                   display-name default-enabled fallback (changelog
//	                   2.1.110-2.1.240; in any case style: displayName, display_name)
//	                   https://code.claude.com/docs/en/skills#frontmatter-reference
//	Codex              name description metadata (metadata.short-description)
//	                   https://developers.openai.com/codex/skills
//	                   codex-rs/core/src/skills/loader.rs (github.com/openai/codex)
//	GitHub Copilot     name description argument-hint user-invocable
//	  (VS Code)        disable-model-invocation context
//	                   https://code.visualstudio.com/docs/agent-customization/agent-skills
//	GitHub Copilot     name description license
//	  (CLI, cloud)     https://docs.github.com/en/copilot/how-tos/copilot-on-github/customize-copilot/customize-cloud-agent/add-skills
//	Cursor             name description license compatibility metadata
//	                   disable-model-invocation
//	                   https://cursor.com/docs/context/skills
//	Gemini CLI         name description
//	                   https://geminicli.com/docs/cli/skills
//	                   packages/core/src/skills/skillLoader.ts (github.com/google-gemini/gemini-cli)
//	OpenCode           name description license compatibility metadata
//	                   https://opencode.ai/docs/skills
//	                   packages/opencode/src/skill/skill.ts (github.com/anomalyco/opencode)
//
// What makes an agent skip a skill, or cut it (the lenient warnings):
//
//   - Codex, Gemini CLI and OpenCode read name and description as strings
//     and skip a skill without either (Codex also one whose name is over 64
//     or description over 1,024 characters, whose metadata is not a
//     mapping or whose metadata.short-description is not a string of at
//     most 500); GitHub Copilot's docs require both. Claude Code uses the
//     folder name and the body's first paragraph instead.
//   - Claude Code cuts description plus when_to_use to 1,536 characters in
//     the listing it shows the model, and ignores a key spelled otherwise
//     than documented ("allowed_tools"), or a value it cannot read.
//   - VS Code's and OpenCode's docs require the name to match the folder.
//   - disable-model-invocation: true with user-invocable: false leaves no
//     way to invoke the skill (Claude Code, VS Code).
//
// Claude Code documents that it ignores keys it does not know, OpenCode
// that it ignores the rest; no agent skips a skill for a key of its own.
// So an unknown key is no lenient finding, unless it is a near miss of a
// documented key, which the agent then ignores.

// Agents, as findings name them.
const (
	AgentNameClaudeCode = "Claude Code"
	AgentNameCodex      = "Codex"
	AgentNameCopilot    = "GitHub Copilot"
	AgentNameCursor     = "Cursor"
	AgentNameGemini     = "Gemini CLI"
	AgentNameOpenCode   = "OpenCode"
)

// agentKeys are the keys each agent documents (see above), in the order
// findings list agents.
var agentKeys = []struct {
	agent string
	keys  []string
}{
	{AgentNameClaudeCode, []string{"name", "description", "when_to_use", "argument-hint", "arguments",
		"disable-model-invocation", "user-invocable", "allowed-tools", "disallowed-tools", "model", "effort",
		"context", "agent", "background", "hooks", "paths", "shell", "metadata", "license", "compatibility",
		"display-name", "default-enabled", "fallback"}},
	{AgentNameCodex, []string{"name", "description", "metadata"}},
	{AgentNameCopilot, []string{"name", "description", "license", "argument-hint", "user-invocable",
		"disable-model-invocation", "context"}},
	{AgentNameCursor, []string{"name", "description", "license", "compatibility", "metadata", "disable-model-invocation"}},
	{AgentNameGemini, []string{"name", "description"}},
	{AgentNameOpenCode, []string{"name", "description", "license", "compatibility", "metadata"}},
}

// caseStyled are the keys an agent reads in any case style (Claude Code's
// display-name as displayName or display_name too).
var caseStyled = map[string]bool{"display-name": true, "default-enabled": true, "fallback": true}

// KeyAgents returns the agents whose documentation defines frontmatter
// key, in a fixed order (none: no agent reads it).
func KeyAgents(key string) []string {
	if k := kebab(key); caseStyled[k] {
		key = k
	}
	var out []string
	for _, a := range agentKeys {
		for _, k := range a.keys {
			if k == key {
				out = append(out, a.agent)
				break
			}
		}
	}
	return out
}

// kebab is key in kebab case: displayName, display_name and DisplayName
// are display-name.
func kebab(key string) string {
	var b strings.Builder
	for i, r := range key {
		switch {
		case r == '_':
			b.WriteByte('-')
		case r >= 'A' && r <= 'Z':
			if i > 0 && !strings.HasSuffix(b.String(), "-") {
				b.WriteByte('-')
			}
			b.WriteRune(r + ('a' - 'A'))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// skipsWithoutNameOrDescription are the agents that skip a skill whose
// frontmatter lacks a name or a description (or holds another type).
var skipsWithoutNameOrDescription = []string{AgentNameCodex, AgentNameGemini, AgentNameOpenCode, AgentNameCopilot}

// joinAgents lists agents in prose: "A", "A and B", "A, B and C".
func joinAgents(agents []string) string {
	switch len(agents) {
	case 0:
		return ""
	case 1:
		return agents[0]
	}
	return strings.Join(agents[:len(agents)-1], ", ") + " and " + agents[len(agents)-1]
}

// agentsDo is agents in prose followed by the verb that agrees with them:
// "Codex skips", "Codex and OpenCode skip".
func agentsDo(agents []string, singular, plural string) string {
	if len(agents) == 1 {
		return agents[0] + " " + singular
	}
	return joinAgents(agents) + " " + plural
}

// documentedNorms are the documented keys with the form nearKey
// compares them in, computed once.
var documentedNorms = sync.OnceValue(func() []struct{ key, norm string } {
	var out []struct{ key, norm string }
	seen := map[string]bool{}
	for _, a := range agentKeys {
		for _, k := range a.keys {
			if !seen[k] {
				seen[k] = true
				out = append(out, struct{ key, norm string }{k, normKey(k)})
			}
		}
	}
	return out
})

// normKey is a key lowercased, without its separators.
func normKey(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '-' || c == '_':
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// nearKey returns the documented key that key is a slip of (another
// case or separator, or, for a key of 6 letters or more, two letters
// off), or "". It is called for every unknown key, which a hostile file
// has by the hundred thousand, so it stays cheap.
func nearKey(key string) string {
	if len(key) > 64 {
		return ""
	}
	n := normKey(key)
	best, bestDist := "", 3
	for _, d := range documentedNorms() {
		if d.norm == n {
			return d.key
		}
		if len(key) >= 6 {
			if dist := editDistance(n, d.norm, bestDist); dist < bestDist {
				best, bestDist = d.key, dist
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or limit when it
// is limit or more (both are at most a few dozen bytes).
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	var rows [2][65]int
	prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
