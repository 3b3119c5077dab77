package discover

import (
	"strings"
	"unicode/utf8"
)

// Agents whose loading rules AgentIssues knows.
const (
	AgentClaudeCode = "claude-code"
	AgentCodex      = "codex"
)

// ClaudeCodeListingLimit is how many characters of description plus
// when_to_use Claude Code shows the model in its skill listing.
const ClaudeCodeListingLimit = 1536

// CodexMaxShortDescription bounds Codex's metadata.short-description.
const CodexMaxShortDescription = 500

// AgentIssue says why an agent would not load a skill, or would load it
// differently than its author expects.
type AgentIssue struct {
	Agent string `json:"agent"`
	// Blocking is set when the agent does not load the skill at all.
	Blocking bool   `json:"blocking"`
	Message  string `json:"message"`
}

// AgentIssues checks a discovered skill against the loaders of Claude Code
// and Codex, whose rules differ from the spec and from each other:
//
//   - Codex (codex-rs skills loader) needs a '---' first line (a byte order
//     mark defeats it), string name and description, name ≤ 64 and
//     description ≤ 1024 characters after collapsing blanks,
//     metadata.short-description ≤ 500; it skips hidden folders and does not
//     follow symlinks.
//   - Claude Code defaults a missing name to the folder and a missing
//     description to the body's first paragraph, expects names of
//     lowercase letters, digits and hyphens up to 64 characters, and
//     truncates description plus when_to_use to 1,536 characters.
func AgentIssues(s *Skill) []AgentIssue {
	var out []AgentIssue
	add := func(agent string, blocking bool, msg string) {
		out = append(out, AgentIssue{Agent: agent, Blocking: blocking, Message: msg})
	}
	if s.File == nil {
		reason := "its SKILL.md cannot be read"
		if len(s.Diagnostics) > 0 {
			reason = s.Diagnostics[0].Message
		}
		add(AgentClaudeCode, true, reason)
		add(AgentCodex, true, reason)
		return out
	}
	fm := &s.File.Frontmatter

	// Codex.
	if s.File.BOM {
		add(AgentCodex, true, "the file starts with a byte order mark, so Codex finds no '---' line; save it as UTF-8 without BOM")
	}
	name := strings.Join(strings.Fields(fm.Name), " ")
	desc := strings.Join(strings.Fields(fm.Description), " ")
	switch {
	case name == "":
		add(AgentCodex, true, "Codex requires a name in the frontmatter")
	case utf8.RuneCountInString(name) > MaxNameLen:
		add(AgentCodex, true, "Codex refuses names over 64 characters")
	}
	switch {
	case desc == "":
		add(AgentCodex, true, "Codex requires a description in the frontmatter")
	case utf8.RuneCountInString(desc) > MaxDescriptionLen:
		add(AgentCodex, true, "Codex refuses descriptions over 1024 characters")
	}
	if sd := shortDescription(fm.Metadata); utf8.RuneCountInString(sd) > CodexMaxShortDescription {
		add(AgentCodex, true, "Codex refuses a metadata.short-description over 500 characters")
	}
	// Codex loads ~/.codex/skills/.system as its own system root.
	if hidden := hiddenComponent(s.RelDir); hidden != "" && !(hidden == ".system" && strings.HasSuffix(s.Root, "/.codex/skills")) {
		add(AgentCodex, true, "Codex skips hidden folders, so it does not see skills under "+hidden+"/; install the skill at the top of a skills folder")
	}
	if s.Symlinked {
		add(AgentCodex, true, "Codex does not follow symlinks; copy the skill instead of linking it")
	}

	// Claude Code.
	if fm.Name != "" && (!nameRE().MatchString(fm.Name) || utf8.RuneCountInString(fm.Name) > MaxNameLen) {
		add(AgentClaudeCode, false, "Claude Code expects a name of lowercase letters, digits and hyphens, at most 64 characters")
	}
	if strings.TrimSpace(fm.Description) == "" {
		add(AgentClaudeCode, false, "without a description Claude Code uses the body's first paragraph, so Claude may not know when to use the skill")
	}
	if n := utf8.RuneCountInString(fm.Description) + utf8.RuneCountInString(fm.WhenToUse); n > ClaudeCodeListingLimit {
		add(AgentClaudeCode, false, "Claude Code truncates description plus when_to_use to 1536 characters in its skill listing; put the key use cases first")
	}
	return out
}

func shortDescription(m map[string]string) string {
	for _, k := range []string{"short-description", "shortDescription", "short_description"} {
		if v, ok := m[k]; ok {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return ""
}

// hiddenComponent returns the first hidden folder in a root-relative path.
func hiddenComponent(rel string) string {
	for _, p := range strings.Split(rel, "/") {
		if strings.HasPrefix(p, ".") && p != "." {
			return p
		}
	}
	return ""
}
