package discover

// Agent is an agent that loads skills from folders, as skillstore knows
// it: where it reads them for one user and inside a project, how to tell
// it is used on this machine, and what it documents of the skills list it
// keeps in its context. Agents is the one table of them: discovery's user
// and project layers, adopt's agent folders, 'target add AGENT', 'target
// detect' and doctor's context budgets all read it.
type Agent struct {
	// Name is what skillstore calls the agent: 'target add NAME'.
	Name string
	// Title names the agent for people.
	Title string
	// View is the agent whose view discovery puts the agent's folders in
	// (AgentClaudeCode, AgentCodex): a skill shadows others within one
	// view.
	View string
	// UserDirs are the folders the agent reads for one user, relative to
	// the home; the first is where 'target add NAME' exports.
	UserDirs []string
	// ProjectDir is the folder the agent reads inside a project, relative
	// to the project's root.
	ProjectDir string
	// Markers are folders in the home whose presence says the agent is
	// used on this machine ('target detect').
	Markers []string
	// Budget is what the agent documents of its always-loaded skills list.
	Budget ContextBudget
}

// ContextBudget is what an agent documents about the skills list it keeps
// in the context at all times (name and description of every skill).
type ContextBudget struct {
	Agent string `json:"agent"`
	// Chars is the budget of the whole list, in characters.
	Chars int `json:"chars"`
	// PerSkill, when set, cuts each skill's entry at that many characters.
	PerSkill int    `json:"per_skill_chars,omitempty"`
	Basis    string `json:"basis"`
}

var (
	claudeBudget = ContextBudget{Agent: "Claude Code", Chars: 8000, PerSkill: 1536,
		Basis: "about 1% of the context window, 8,000 characters when unknown; each skill's description and when_to_use cut at 1,536 characters"}
	codexBudget = ContextBudget{Agent: "Codex", Chars: 8000,
		Basis: "about 2% of the context window, 8,000 characters when unknown; descriptions are shortened first"}
)

// agents is the table (see Agent), in the order 'target detect' proposes
// them and discovery lists their folders. Codex reads ~/.codex/skills,
// its older folder, besides ~/.agents/skills.
var agents = []Agent{
	{Name: "claude", Title: "Claude Code", View: AgentClaudeCode,
		UserDirs: []string{".claude/skills"}, ProjectDir: ".claude/skills",
		Markers: []string{".claude"}, Budget: claudeBudget},
	{Name: "codex", Title: "Codex", View: AgentCodex,
		UserDirs: []string{".agents/skills", ".codex/skills"}, ProjectDir: ".agents/skills",
		Markers: []string{".codex", ".agents"}, Budget: codexBudget},
	{Name: "agents", Title: "agents reading .agents/skills (Codex, Cursor, Gemini CLI, ...)", View: AgentCodex,
		UserDirs: []string{".agents/skills"}, ProjectDir: ".agents/skills",
		Budget: codexBudget},
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

// AgentDir is a folder agents read skills from, relative to a home or a
// project's root, with the view discovery puts it in.
type AgentDir struct {
	Path string
	View string
}

// AgentDirs lists the folders the agents read skills from, relative to a
// home (project false) or a project's root, each once, in the table's
// order; a folder two agents read is in the view of the first.
func AgentDirs(project bool) []AgentDir {
	var out []AgentDir
	seen := map[string]bool{}
	for _, a := range agents {
		dirs := a.UserDirs
		if project {
			dirs = []string{a.ProjectDir}
		}
		for _, d := range dirs {
			if !seen[d] {
				seen[d] = true
				out = append(out, AgentDir{Path: d, View: a.View})
			}
		}
	}
	return out
}
