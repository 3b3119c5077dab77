package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/reload/target"
)

// ContextCost is what the skills in one target's folder cost the skills
// list of the agent reading it (discover.ContextBudget.Measure, the one
// computation export uses too).
type ContextCost struct {
	Target string `json:"target"`
	Dir    string `json:"dir"`
	discover.Listing
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

// folderEntries reads the SKILL.md of every skill folder in the target
// (what the agent itself will read, whoever wrote it): what its list
// shows of each.
func folderEntries(t target.Target) []discover.ListingEntry {
	var out []discover.ListingEntry
	for _, f := range skillFolders(t) {
		p := filepath.Join(f.dir, f.entry.Name(), "SKILL.md")
		// Whoever wrote the folder: a regular file, bounded, never a FIFO.
		data, err := safefile.ReadFile(p, discover.MaxFileSize)
		if err != nil {
			continue
		}
		name, description, whenToUse, err := discover.ListingFields(data)
		if err != nil {
			continue
		}
		if name == "" {
			name = f.entry.Name()
		}
		out = append(out, discover.ListingEntry{Name: f.prefix + name, Description: description, WhenToUse: whenToUse, Path: p})
	}
	return out
}

// MeasureTarget measures what the target's folder holds against the
// budget of the agent reading it (the first with a documented budget;
// none: names and descriptions counted).
func MeasureTarget(t target.Target) ContextCost {
	home, _ := os.UserHomeDir()
	b := discover.ContextBudget{}
	if agents := t.ListingAgents(home); len(agents) > 0 {
		b = agents[0].Budget
	}
	return ContextCost{Target: t.Name, Dir: t.Dir, Listing: b.Measure(folderEntries(t))}
}

// maxShortenedLines bounds the skills doctor names per target: a store of
// hundreds would otherwise fill the screen with one line each.
const maxShortenedLines = 10

// WriteContextCosts prints doctor's section on the targets' context cost.
func WriteContextCosts(w io.Writer, costs []ContextCost) {
	if len(costs) == 0 {
		return
	}
	cliout.Printf(w, "\nContext cost per target (name and description of every skill, always loaded):\n")
	for _, c := range costs {
		// The budget is in characters, the agents' unit; tokens are an
		// estimate, said apart.
		line := fmt.Sprintf("  %s (%s): %s, %d characters", c.Target, DisplayPath(c.Dir), Plural(c.Skills, "skill"), c.Chars)
		if b := c.Budget; b != nil && b.Chars > 0 {
			line += fmt.Sprintf(" of %s's %d (%d%%)", b.Agent, b.Chars, c.Chars*100/b.Chars)
		}
		line += fmt.Sprintf(", about %d tokens", c.Tokens)
		cliout.Println(w, line)
		if c.OverBy > 0 {
			cliout.Reportf(w, "        ", "    over budget by %d characters (%s)\n", c.OverBy, c.Budget.Basis)
		}
		for i, s := range c.Shortened {
			if i == maxShortenedLines {
				cliout.Printf(w, "    and %d more ('skillstore doctor --json' lists them all)\n", len(c.Shortened)-i)
				break
			}
			cliout.Reportf(w, "        ", "    shortened: %s (%d characters): %s\n", s.Skill, s.Chars, s.Reason)
		}
		if c.OverBy > 0 {
			cliout.Reportf(w, "        ", "    %s\n", selectFewer(c.Target))
		}
	}
}

// selectFewer tells how to give a target fewer skills.
func selectFewer(name string) string {
	return fmt.Sprintf("select fewer: skillstore target set %s --only PATTERN... or --except PATTERN... (NAME, PLUGIN:NAME, a plugin, @TAG; see 'skillstore tag')", cliout.Quote(name))
}
