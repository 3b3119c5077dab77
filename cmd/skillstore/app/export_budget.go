package app

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// printListings says, for each target whose skills list is over the
// documented budget of an agent reading it (or was refused for its max
// budget), how far over, what the agent cuts first, and how to select
// fewer. Targets within budget print nothing. A message the same as the
// last export printed for that target and agent is one line pointing to
// doctor (all of it with verbose): a cron export does not repeat nine
// lines nothing changed in.
func printListings(w io.Writer, s *store.Store, exports []target.Exported, verbose bool) {
	for _, te := range exports {
		refused := te.Error != "" && len(te.Results) == 0
		for _, l := range te.Listing {
			if !l.Over() && !refused {
				continue
			}
			said, _ := json.Marshal(l) // what the message is made of
			if !verbose && !refused && l.Budget != nil && repeatedWarning(s, "export/listing/"+te.Target+"/"+l.Agent, string(said)) {
				cliout.Reportf(w, "    ", "warning: target %s: %s's skills list is still %s characters, %s its budget, as at the last export (details: 'skillstore doctor', or export --verbose)\n",
					te.Target, l.Budget.Agent, thousands(l.Chars), times(l.Chars, l.Budget.Chars))
				continue
			}
			writeListing(w, te.Target, l)
		}
	}
}

// writeListing is one target's budget message.
func writeListing(w io.Writer, name string, l target.AgentListing) {
	b := l.Budget
	switch {
	case b == nil || b.Agent == "":
		cliout.Printf(w, "target %s: the skills list (names and descriptions) is %s characters, ~%s tokens\n", name, thousands(l.Chars), thousands(l.Tokens))
	case l.Over():
		cliout.Reportf(w, "    ", "warning: target %s: %s's skills list would be %s characters, %s its budget of %s (%s)\n",
			name, b.Agent, thousands(l.Chars), times(l.Chars, b.Chars), thousands(b.Chars), b.Basis)
	default:
		cliout.Printf(w, "target %s: %s's skills list would be %s characters of its %s\n", name, b.Agent, thousands(l.Chars), thousands(b.Chars))
	}
	groups := cutGroups(l.Shortened)
	leftOut := false
	for _, g := range groups {
		leftOut = leftOut || g.action == discover.CutLeftOut
	}
	for _, g := range groups {
		switch {
		case g.action == discover.CutDescriptionRemoved && leftOut:
			continue // said with the skills left out
		case g.action == discover.CutLeftOut:
			cliout.Reportf(w, "      ", "  %s removes every description (the lines are over even without them) and leaves out %s, in name order from: %s\n",
				b.Agent, Plural(len(g.skills), "skill"), cutNames(g.skills, 8))
		default:
			cliout.Reportf(w, "      ", "  %s: %s\n", cutHeading(g.action, b), cutNames(g.skills, 8))
		}
	}
	cliout.Reportf(w, "      ", "  %s\n", selectFewer(name))
}

// cutGroup is the skills an agent cuts one way.
type cutGroup struct {
	action string
	skills []discover.CutSkill
}

func cutGroups(cuts []discover.CutSkill) []cutGroup {
	var out []cutGroup
	for _, c := range cuts {
		found := false
		for i := range out {
			if out[i].action == c.Action {
				out[i].skills, found = append(out[i].skills, c), true
				break
			}
		}
		if !found {
			out = append(out, cutGroup{action: c.Action, skills: []discover.CutSkill{c}})
		}
	}
	return out
}

// cutHeading says what the agent does to a group of skills.
func cutHeading(action string, b *discover.ContextBudget) string {
	agent := "the agent"
	if b != nil && b.Agent != "" {
		agent = b.Agent
	}
	switch action {
	case discover.CutTruncated:
		return fmt.Sprintf("%s cuts description and when_to_use at %d characters", agent, b.PerSkill)
	case discover.CutDescriptionDropped:
		return agent + " drops descriptions first, those of the skills used least (names stay); dropping the longest, the fewest that fit are"
	case discover.CutShortened:
		return agent + " shortens the longest descriptions first, to"
	case discover.CutDescriptionRemoved:
		return agent + " removes every description (the lines are over even without them)"
	}
	return agent + " cuts"
}

// cutNames names up to n skills with their length (and what is kept), and
// counts the rest.
func cutNames(cuts []discover.CutSkill, n int) string {
	var parts []string
	for i, c := range cuts {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(cuts)-n))
			break
		}
		if c.Action == discover.CutShortened {
			parts = append(parts, fmt.Sprintf("%s (%d characters kept)", c.Skill, c.Keeps))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (%d characters)", c.Skill, c.Chars))
	}
	return strings.Join(parts, ", ")
}

// times is how many times over b a is: "1.4 times", "19 times".
func times(a, b int) string {
	if b <= 0 {
		return ""
	}
	r := float64(a) / float64(b)
	if r < 10 {
		return fmt.Sprintf("%.1f times", r)
	}
	return fmt.Sprintf("%.0f times", r)
}

// thousands writes n with thousands separators: 153,012.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
