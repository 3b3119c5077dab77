package discover

// Agent is an agent that loads skills from folders, as skillstore knows
// it: where it reads them for one user and inside a project, how to tell
// it is used on this machine, and what it documents of the skills list it
// keeps in its context. Agents is the one table of them: discovery's user
// and project layers, adopt's agent folders, 'target add AGENT', 'target
// detect', the double-load warning and the listing budgets all read it.
type Agent struct {
	// Name is what skillstore calls the agent: 'target add NAME'.
	Name string
	// Title names the agent for people.
	Title string
	// View is the agent whose view discovery puts the agent's folders in
	// (AgentClaudeCode, AgentCodex, or the agent's own name): a skill
	// shadows others within one view.
	View string
	// Docs is where the agent documents the folders below.
	Docs string
	// UserDirs are the folders the agent reads for one user, relative to
	// the home; the first is where 'target add NAME' exports.
	UserDirs []string
	// ProjectDirs are the folders the agent reads inside a project,
	// relative to the project's root; the first is where 'target add
	// --project NAME' exports.
	ProjectDirs []string
	// AdminDirs are machine-wide folders (absolute) the agent reads too.
	// 'target detect' reports them; skillstore never exports there (they
	// need root and reach every user of the machine).
	AdminDirs []string
	// Markers are folders in the home whose presence says the agent is
	// used on this machine ('target detect').
	Markers []string
	// ProjectMarkers are entries of a project's root whose presence says
	// the project uses the agent.
	ProjectMarkers []string
	// Binaries are commands whose presence on $PATH says the agent is
	// installed.
	Binaries []string
	// Generic marks a preset that is a folder several agents share rather
	// than one agent: detect never looks for it, but proposes its folder.
	Generic bool
	// Budget is what the agent documents of its always-loaded skills list.
	Budget ContextBudget
}

// agents is the table (see Agent), in the order discovery lists their
// folders and detect prefers them. The folders come from each agent's
// documentation (Docs), checked against its source where it is public:
//
//   - Codex reads $HOME/.agents/skills, the deprecated $CODEX_HOME/skills
//     (~/.codex/skills), the admin folder /etc/codex/skills and, in a
//     project, .agents/skills in every folder from the working directory
//     up to the repository root and .codex/skills (its project config
//     folder); codex-rs/core-skills/src/loader.rs (github.com/openai/codex).
//     It drops duplicates by SKILL.md path only, so a skill in two of its
//     folders is listed twice (root_loader.rs).
//   - Cursor reads .agents/skills and .cursor/skills in a project and
//     ~/.cursor/skills for the user, and the Claude and Codex folders at
//     both scopes (not ~/.agents/skills).
//   - GitHub Copilot (CLI, cloud agent, VS Code) reads .github/skills,
//     .claude/skills and .agents/skills in a project and ~/.copilot/skills,
//     ~/.claude/skills and ~/.agents/skills for the user.
//   - Gemini CLI reads .gemini/skills or the .agents/skills alias, in the
//     workspace and in the home; of two skills with one name it keeps the
//     one of higher precedence.
//   - OpenCode reads ~/.config/opencode/skills (following
//     $XDG_CONFIG_HOME; skillstore uses ~/.config) and .opencode/skills,
//     and the .claude/skills and .agents/skills folders in the home and in
//     every folder up to the worktree root; of two skills with one name it
//     keeps the last found and logs "duplicate skill name"
//     (packages/opencode/src/skill, github.com/anomalyco/opencode).
var agents = []Agent{
	{Name: "claude", Title: "Claude Code", View: AgentClaudeCode, Docs: "https://code.claude.com/docs/en/skills",
		UserDirs: []string{".claude/skills"}, ProjectDirs: []string{".claude/skills"},
		Markers: []string{".claude"}, ProjectMarkers: []string{".claude", "CLAUDE.md"},
		Binaries: []string{"claude"}, Budget: claudeBudget},
	{Name: "codex", Title: "Codex", View: AgentCodex, Docs: "https://developers.openai.com/codex/skills",
		UserDirs: []string{".agents/skills", ".codex/skills"}, ProjectDirs: []string{".agents/skills", ".codex/skills"},
		AdminDirs: []string{"/etc/codex/skills"},
		Markers:   []string{".codex"}, ProjectMarkers: []string{".codex"},
		Binaries: []string{"codex"}, Budget: codexBudget},
	{Name: "cursor", Title: "Cursor", View: "cursor", Docs: "https://cursor.com/docs/context/skills",
		UserDirs:    []string{".cursor/skills", ".claude/skills", ".codex/skills"},
		ProjectDirs: []string{".cursor/skills", ".agents/skills", ".claude/skills", ".codex/skills"},
		Markers:     []string{".cursor"}, ProjectMarkers: []string{".cursor"},
		Binaries: []string{"cursor-agent", "cursor"}, Budget: undocumentedBudget("Cursor")},
	{Name: "copilot", Title: "GitHub Copilot", View: "copilot",
		Docs:        "https://docs.github.com/en/copilot/how-tos/use-copilot-agents/cloud-agent/create-skills",
		UserDirs:    []string{".copilot/skills", ".agents/skills", ".claude/skills"},
		ProjectDirs: []string{".github/skills", ".agents/skills", ".claude/skills"},
		Markers:     []string{".copilot"}, ProjectMarkers: []string{".github/skills", ".github/copilot-instructions.md", ".github/instructions"},
		Binaries: []string{"copilot"}, Budget: undocumentedBudget("GitHub Copilot")},
	{Name: "gemini", Title: "Gemini CLI", View: "gemini", Docs: "https://geminicli.com/docs/cli/using-agent-skills/",
		UserDirs: []string{".gemini/skills", ".agents/skills"}, ProjectDirs: []string{".gemini/skills", ".agents/skills"},
		Markers: []string{".gemini"}, ProjectMarkers: []string{".gemini", "GEMINI.md"},
		Binaries: []string{"gemini"}, Budget: undocumentedBudget("Gemini CLI")},
	{Name: "opencode", Title: "OpenCode", View: "opencode", Docs: "https://opencode.ai/docs/skills",
		UserDirs:    []string{".config/opencode/skills", ".claude/skills", ".agents/skills"},
		ProjectDirs: []string{".opencode/skills", ".claude/skills", ".agents/skills"},
		Markers:     []string{".config/opencode"}, ProjectMarkers: []string{".opencode", "opencode.json"},
		Binaries: []string{"opencode"}, Budget: undocumentedBudget("OpenCode")},
	{Name: "agents", Title: "agents reading .agents/skills (Codex, Copilot, Gemini CLI, OpenCode, ...)", View: AgentCodex,
		Docs:     "https://agentskills.io",
		UserDirs: []string{".agents/skills"}, ProjectDirs: []string{".agents/skills"},
		Generic: true, Budget: codexBudget},
}

// Agents returns the agents skillstore knows (see Agent).
func Agents() []Agent { return append([]Agent(nil), agents...) }

// FindAgent returns the agent skillstore calls name.
func FindAgent(name string) (Agent, bool) {
	for _, a := range agents {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// Dirs are the folders a reads at one scope: its project folders when
// project is set, else its user folders.
func (a Agent) Dirs(project bool) []string {
	if project {
		return a.ProjectDirs
	}
	return a.UserDirs
}

// ExportDir is the folder 'target add' exports to for a at one scope.
func (a Agent) ExportDir(project bool) string { return a.Dirs(project)[0] }

// Reads reports whether a reads the folder rel (relative to a home, or
// to a project's root when project is set).
func (a Agent) Reads(rel string, project bool) bool {
	for _, d := range a.Dirs(project) {
		if d == rel {
			return true
		}
	}
	return false
}

// AgentsReading lists the agents (not the generic presets) that read the
// folder rel, relative to a home or, when project is set, to a project's
// root, in the table's order.
func AgentsReading(rel string, project bool) []Agent {
	var out []Agent
	for _, a := range agents {
		if !a.Generic && a.Reads(rel, project) {
			out = append(out, a)
		}
	}
	return out
}

// AgentDir is a folder agents read skills from, relative to a home or a
// project's root, with the view discovery puts it in.
type AgentDir struct {
	Path string
	View string
}

// AgentDirs lists the folders the agents read skills from, relative to a
// home (project false) or a project's root, each once, in the table's
// order; a folder several agents read is in the view of the first.
func AgentDirs(project bool) []AgentDir {
	var out []AgentDir
	seen := map[string]bool{}
	for _, a := range agents {
		for _, d := range a.Dirs(project) {
			if !seen[d] {
				seen[d] = true
				out = append(out, AgentDir{Path: d, View: a.View})
			}
		}
	}
	return out
}
