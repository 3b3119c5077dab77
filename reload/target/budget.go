package target

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/reload"
)

// ParseMaxBudget reads a max budget (Target.MaxBudget, export
// --max-budget): "" for none, "agent" for the documented budget of the
// agents the folder reaches, or a number of characters.
func ParseMaxBudget(v string) (chars int, agent bool, err error) {
	switch v {
	case "":
		return 0, false, nil
	case "agent":
		return 0, true, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, false, fmt.Errorf("max budget %q: give a number of characters (e.g. 8000) or 'agent'", v)
	}
	return n, false, nil
}

// AgentListing is what a target's skills cost one agent's skills list.
type AgentListing struct {
	// Agent is the agent's name in skillstore's table.
	Agent string `json:"agent_name"`
	discover.Listing
}

// Over reports whether the list passes the agent's documented budget.
func (l AgentListing) Over() bool { return l.OverBy > 0 }

// OverBudgetError refuses to export into a target whose skills list would
// go past its max budget. Nothing was written into the target.
type OverBudgetError struct {
	Target string
	// Agent is the agent the list was measured for ("" when none of the
	// table reads the folder: names and descriptions counted).
	Agent string
	Chars int
	// Max is the budget in characters; AgentBudget is set when it is the
	// agent's own (max budget "agent").
	Max         int
	AgentBudget bool
	// Setting says where the budget came from: the target's setting or
	// the command's --max-budget.
	Setting string
}

func (e *OverBudgetError) Error() string {
	who := "its skills list"
	if e.Agent != "" {
		who = e.Agent + "'s skills list"
	}
	max := fmt.Sprintf("the max budget of %d characters (%s)", e.Max, e.Setting)
	if e.AgentBudget {
		max = fmt.Sprintf("%s's own budget of %d characters (%s)", e.Agent, e.Max, e.Setting)
	}
	return fmt.Sprintf("%s would be %d characters, over %s; nothing written", who, e.Chars, max)
}

// ListingAgents are the agents with a documented budget that read t's
// folder (see listingAgents): doctor and target list measure what the
// folder holds for them.
func (t Target) ListingAgents(home string) []discover.Agent { return t.listingAgents(home, false) }

// listingAgents are the agents a target's skills list is measured for:
// those reading its folder that document a budget; when none reads it,
// the agent the target is named after (a target "claude" in a folder of
// the user's choosing is meant for Claude Code). With all set, the agents
// without a documented budget too (measured as names and descriptions).
func (t Target) listingAgents(home string, all bool) []discover.Agent {
	readers := t.Reach(home).Agents
	if len(readers) == 0 {
		if a, ok := discover.FindAgent(t.Name); ok && !t.IsMarketplace() {
			readers = []discover.Agent{a}
		}
	}
	var out []discover.Agent
	for _, a := range readers {
		if all || a.Budget.Chars > 0 {
			out = append(out, a)
		}
	}
	return out
}

// measureListing measures what the skills export is about to write into t
// cost the agents reading it (see listingAgents), reading each one's
// SKILL.md from the store, and checks max (the command's --max-budget,
// else t's own). The result is nil when there is nothing to measure.
func (t Target) measureListing(sr *storeReads, skills []reload.Skill, home, max string) ([]AgentListing, error) {
	setting := "--max-budget"
	if max == "" {
		max, setting = t.MaxBudget, "the target's max_budget"
	}
	limit, agentLimit, err := ParseMaxBudget(max)
	if err != nil {
		return nil, err
	}
	agents := t.listingAgents(home, limit > 0)
	if len(agents) == 0 && limit > 0 {
		agents = []discover.Agent{{Name: "", Budget: discover.ContextBudget{Basis: "names and descriptions"}}}
	}
	if len(agents) == 0 {
		return nil, nil
	}
	entries, err := listingEntries(sr, t.Dir, skills)
	if err != nil {
		return nil, err
	}
	var out []AgentListing
	for _, a := range agents {
		l := AgentListing{Agent: a.Name, Listing: a.Budget.Measure(entries)}
		out = append(out, l)
		switch {
		case limit > 0 && l.Chars > limit:
			return out, &OverBudgetError{Target: t.Name, Agent: a.Budget.Agent, Chars: l.Chars, Max: limit, Setting: setting}
		case agentLimit && l.Over():
			return out, &OverBudgetError{Target: t.Name, Agent: a.Budget.Agent, Chars: l.Chars, Max: a.Budget.Chars, AgentBudget: true, Setting: setting}
		}
	}
	return out, nil
}

// listingEntries reads, for each skill export places in dir, what its
// agent lists: the frontmatter name (the folder's when export renames the
// skill, or when it has none), description and when_to_use.
func listingEntries(sr *storeReads, dir string, skills []reload.Skill) ([]discover.ListingEntry, error) {
	out := make([]discover.ListingEntry, 0, len(skills))
	err := sr.batch(func() error {
		for _, s := range skills {
			tree, renamed := s.Tree, !s.StoreTree.IsZero()
			if renamed {
				tree = s.StoreTree
			}
			data, err := sr.r.SkillMD(tree)
			if err != nil {
				return fmt.Errorf("read %s: %w", s.Name, err)
			}
			e := discover.ListingEntry{Name: s.Name, Path: filepath.Join(dir, s.Name, "SKILL.md")}
			if sf, err := discover.Parse(data); err == nil && sf != nil {
				e.Description, e.WhenToUse = sf.Frontmatter.Description, sf.Frontmatter.WhenToUse
				if sf.Frontmatter.Name != "" && !renamed {
					e.Name = sf.Frontmatter.Name
				}
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}
