package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/reload/target"
)

// charsPerToken is the usual rough ratio for English text; the token
// figures are approximate by nature.
const charsPerToken = 4

// contextCost is what the skills in one target cost the agent's context.
type contextCost struct {
	Target string `json:"target"`
	Dir    string `json:"dir"`
	Skills int    `json:"skills"`
	// Chars counts name and description (and when_to_use, which Claude
	// Code lists too) of every skill in the target folder.
	Chars  int                     `json:"chars"`
	Tokens int                     `json:"approx_tokens"`
	Budget *discover.ContextBudget `json:"budget,omitempty"`
	// OverBy is how far the list goes past the budget (0: it fits).
	OverBy int `json:"over_by_chars"`
	// Shortened names the skills whose descriptions the agent will shorten:
	// entries past the per-skill cut, then, when the list is over budget,
	// the longest descriptions until the excess is covered.
	Shortened []shortenedSkill `json:"shortened"`
}

type shortenedSkill struct {
	Skill  string `json:"skill"`
	Chars  int    `json:"chars"`
	Reason string `json:"reason"`
}

// skillEntry is one skill's part of the always-loaded list.
type skillEntry struct {
	name  string
	chars int
}

// skillFolder is one skill folder of a target: entry in dir, named with
// prefix ("PLUGIN:" in a marketplace target's plugins).
type skillFolder struct {
	dir, prefix string
	entry       os.DirEntry
}

// skillFolders lists a target's skill folders: its entries, or in a
// marketplace target each plugin's skills/ entries.
func skillFolders(t target.Target) []skillFolder {
	var out []skillFolder
	add := func(dir, prefix string) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") {
				out = append(out, skillFolder{dir: dir, prefix: prefix, entry: e})
			}
		}
	}
	if !t.IsMarketplace() {
		add(t.Dir, "")
		return out
	}
	plugins, _ := os.ReadDir(t.PluginsDir())
	for _, p := range plugins {
		if !strings.HasPrefix(p.Name(), ".") {
			add(filepath.Join(t.PluginsDir(), p.Name(), "skills"), p.Name()+":")
		}
	}
	return out
}

// measureTarget reads the SKILL.md of every skill folder in the target
// (what the agent itself will read, whoever wrote it) and sums its cost.
func measureTarget(t target.Target) contextCost {
	cost := contextCost{Target: t.Name, Dir: t.Dir, Shortened: []shortenedSkill{}}
	if a, ok := agentOf(t); ok {
		b := a.Budget
		cost.Budget = &b
	}
	var skills []skillEntry
	for _, f := range skillFolders(t) {
		e, dir := f.entry, f.dir
		// Whoever wrote the folder: a regular file, bounded, never a FIFO.
		data, err := safefile.ReadFile(filepath.Join(dir, e.Name(), "SKILL.md"), discover.MaxFileSize)
		if err != nil {
			continue
		}
		sf, err := discover.Parse(data)
		if err != nil {
			continue
		}
		name := sf.Frontmatter.Name
		if name == "" {
			name = e.Name()
		}
		name = f.prefix + name
		text := sf.Frontmatter.Description
		if cost.Budget != nil && cost.Budget.PerSkill > 0 {
			text += sf.Frontmatter.WhenToUse
		}
		skills = append(skills, skillEntry{name: name, chars: utf8.RuneCountInString(name) + utf8.RuneCountInString(text)})
	}
	cost.Skills = len(skills)
	total := 0
	shortened := map[string]bool{}
	for _, s := range skills {
		n := s.chars
		if b := cost.Budget; b != nil && b.PerSkill > 0 && n > b.PerSkill {
			cost.Shortened = append(cost.Shortened, shortenedSkill{Skill: s.name, Chars: s.chars,
				Reason: fmt.Sprintf("over %s's %d characters per skill", b.Agent, b.PerSkill)})
			shortened[s.name] = true
			n = b.PerSkill
		}
		total += n
	}
	cost.Chars, cost.Tokens = total, (total+charsPerToken-1)/charsPerToken
	if cost.Budget == nil || total <= cost.Budget.Chars {
		return cost
	}
	cost.OverBy = total - cost.Budget.Chars
	sort.SliceStable(skills, func(i, j int) bool { return skills[i].chars > skills[j].chars })
	covered := 0
	for _, s := range skills {
		if covered >= cost.OverBy {
			break
		}
		covered += s.chars
		if !shortened[s.name] {
			cost.Shortened = append(cost.Shortened, shortenedSkill{Skill: s.name, Chars: s.chars,
				Reason: fmt.Sprintf("the list is %d characters over %s's budget", cost.OverBy, cost.Budget.Agent)})
		}
	}
	return cost
}

// writeContextCosts prints doctor's section on the targets' context cost.
func writeContextCosts(w io.Writer, costs []contextCost) {
	if len(costs) == 0 {
		return
	}
	cliout.Printf(w, "\nContext cost per target (name and description of every skill, always loaded):\n")
	for _, c := range costs {
		// The budget is in characters, the agents' unit; tokens are an
		// estimate, said apart.
		line := fmt.Sprintf("  %s (%s): %s, %d characters", c.Target, displayPath(c.Dir), plural(c.Skills, "skill"), c.Chars)
		if b := c.Budget; b != nil {
			line += fmt.Sprintf(" of %s's %d (%d%%)", b.Agent, b.Chars, c.Chars*100/b.Chars)
		}
		line += fmt.Sprintf(", about %d tokens", c.Tokens)
		cliout.Println(w, line)
		if c.OverBy > 0 {
			cliout.Printf(w, "    over budget by %d characters (%s)\n", c.OverBy, c.Budget.Basis)
		}
		for _, s := range c.Shortened {
			cliout.Printf(w, "    shortened: %s (%d characters): %s\n", s.Skill, s.Chars, s.Reason)
		}
	}
}

// agentOf is the agent a target exports to, for its context budget: the
// agent the target is named after, else the one whose project folder the
// target's folder is.
func agentOf(t target.Target) (discover.Agent, bool) {
	if a, ok := discover.FindAgent(t.Name); ok {
		return a, true
	}
	slash := filepath.ToSlash(t.Dir)
	for _, a := range discover.Agents() {
		if strings.HasSuffix(slash, "/"+a.ProjectDir) {
			return a, true
		}
	}
	return discover.Agent{}, false
}
