package target

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/discover"
)

// Reach is where a target's folder sits for the agents: the scope (a home
// or a project's root) and the agents of skillstore's table that read it.
type Reach struct {
	// Scope is "user" or "project"; "" when no known agent reads the
	// folder.
	Scope string `json:"scope,omitempty"`
	// Root is the home, or the project's root.
	Root string `json:"root,omitempty"`
	// Rel is the folder relative to Root, slash-separated.
	Rel    string           `json:"rel,omitempty"`
	Agents []discover.Agent `json:"-"`
}

// Reach finds the agents that read t's folder: a project's target by its
// place in the project, a folder in home as one of the agents' user
// folders, any other folder ending in an agent's project folder
// (/x/app/.claude/skills) as that project's. A marketplace target reaches
// no agent directly (its plugins are installed).
func (t Target) Reach(home string) Reach {
	if t.IsMarketplace() {
		return Reach{}
	}
	if t.Project != "" {
		if rel, ok := relSlash(t.Project, t.Dir); ok {
			return reach("project", t.Project, rel)
		}
	}
	if home != "" {
		if rel, ok := relSlash(home, t.Dir); ok {
			if r := reach("user", home, rel); len(r.Agents) > 0 {
				return r
			}
		}
	}
	slash := filepath.ToSlash(t.Dir)
	for _, d := range discover.AgentDirs(true) {
		if root, ok := strings.CutSuffix(slash, "/"+d.Path); ok && root != "" {
			return reach("project", filepath.FromSlash(root), d.Path)
		}
	}
	return Reach{}
}

func reach(scope, root, rel string) Reach {
	agents := discover.AgentsReading(rel, scope == "project")
	if len(agents) == 0 {
		return Reach{}
	}
	return Reach{Scope: scope, Root: root, Rel: rel, Agents: agents}
}

// relSlash is p relative to base, slash-separated, when p is below base.
func relSlash(base, p string) (string, bool) {
	rel, err := filepath.Rel(base, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// DoubleLoad is an agent that reads the folders of several targets of one
// scope, and the skills more than one of them holds: the agent finds
// each of those twice (Codex lists both copies; Gemini CLI and OpenCode
// keep one by their precedence, OpenCode with a warning).
type DoubleLoad struct {
	Agent   string   `json:"agent"`
	Title   string   `json:"title"`
	Scope   string   `json:"scope"`
	Root    string   `json:"root"`
	Targets []string `json:"targets"`
	Dirs    []string `json:"dirs"`
	// Skills are the store names of the skills several of Targets hold.
	Skills []string `json:"skills"`
}

// DoubleLoads finds the agents that read two or more of the targets'
// folders (at one scope: a home, or one project) and the published
// skills (store names) those targets both hold; an agent whose targets
// share no skill is not listed.
func DoubleLoads(targets []Target, home string, published []string) []DoubleLoad {
	type group struct {
		scope, root, agent string
		title              string
		targets            []Target
		dirs               []string
	}
	groups := map[string]*group{}
	var keys []string
	for _, t := range targets {
		r := t.Reach(home)
		for _, a := range r.Agents {
			key := r.Scope + "\x00" + r.Root + "\x00" + a.Name
			g := groups[key]
			if g == nil {
				g = &group{scope: r.Scope, root: r.Root, agent: a.Name, title: a.Title}
				groups[key] = g
				keys = append(keys, key)
			}
			g.targets = append(g.targets, t)
			g.dirs = append(g.dirs, r.Rel)
		}
	}
	sort.Strings(keys)
	var out []DoubleLoad
	for _, k := range keys {
		g := groups[k]
		if len(g.targets) < 2 {
			continue
		}
		var both []string
		for _, name := range published {
			n := 0
			for _, t := range g.targets {
				if t.Wants(name) {
					n++
				}
			}
			if n > 1 {
				both = append(both, name)
			}
		}
		if len(both) == 0 {
			continue
		}
		d := DoubleLoad{Agent: g.agent, Title: g.title, Scope: g.scope, Root: g.root, Dirs: g.dirs, Skills: both}
		for _, t := range g.targets {
			d.Targets = append(d.Targets, t.Name)
		}
		out = append(out, d)
	}
	return out
}
