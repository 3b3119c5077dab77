package discover

import (
	"fmt"
	"path/filepath"
	"sort"
	"unicode/utf8"
)

// ContextBudget is what an agent documents about the skills list it keeps
// in the context at all times (name and description of every skill): the
// budget of the whole list in characters, where the figure comes from, and
// (unexported) how the agent writes the list and cuts it.
type ContextBudget struct {
	Agent string `json:"agent"`
	// Chars is the budget of the whole list, in characters; 0 when the
	// agent documents none (it lists every skill in full).
	Chars int `json:"chars"`
	// PerSkill, when set, cuts each skill's description at that many
	// characters.
	PerSkill int    `json:"per_skill_chars,omitempty"`
	Basis    string `json:"basis"`
	style    listingStyle
}

// listingStyle is how an agent writes its skills list and what it does
// when the list is over its budget.
type listingStyle int

const (
	// listPlain: name and description of every skill, no documented cap.
	listPlain listingStyle = iota
	// listClaude: name, description and when_to_use, the last two cut at
	// PerSkill; over the budget the descriptions of the skills used least
	// are dropped and the names stay.
	listClaude
	// listCodex: one line "- NAME: DESCRIPTION (file: PATH)" per skill;
	// over the budget every description is shortened evenly (the longest
	// lose most), and when the lines without descriptions still do not
	// fit, the skills past the budget in name order are left out.
	listCodex
)

// The budgets the agents document. Claude Code: "about 1% of the context
// window, with a fallback of 8,000 characters", description and
// when_to_use "truncated at 1,536 characters" per skill, the descriptions
// of the least-used skills dropped first (https://code.claude.com/docs/en/skills;
// settings skillListingBudgetFraction and skillListingMaxDescChars).
// Codex: "roughly 2% of the model's context window, or 8,000 characters
// when the context window is unknown", descriptions shortened first, then
// skills omitted (https://developers.openai.com/codex/skills; the line
// format and the even shortening are codex-rs/core-skills/src/render.rs in
// github.com/openai/codex). skillstore does not know the model's window,
// so it measures against the 8,000-character figure both give. Cursor,
// GitHub Copilot, Gemini CLI and OpenCode document no cap: Gemini CLI
// "injects the name and description of all enabled skills into the system
// prompt" (https://geminicli.com/docs/cli/skills), OpenCode lists every
// skill in its skill tool.
var (
	claudeBudget = ContextBudget{Agent: "Claude Code", Chars: 8000, PerSkill: ClaudeCodeListingLimit, style: listClaude,
		Basis: "about 1% of the context window, 8,000 characters when unknown, per code.claude.com/docs/en/skills"}
	codexBudget = ContextBudget{Agent: "Codex", Chars: 8000, style: listCodex,
		Basis: "about 2% of the context window, 8,000 characters when unknown, per developers.openai.com/codex/skills"}
)

// undocumentedBudget is the budget of an agent that documents no cap.
func undocumentedBudget(agent string) ContextBudget {
	return ContextBudget{Agent: agent, style: listPlain, Basis: "no documented limit: every skill's name and description is listed"}
}

// CharsPerToken is the usual rough ratio for English text; token figures
// are approximate by nature.
const CharsPerToken = 4

// ListingEntry is one skill as an agent's list shows it.
type ListingEntry struct {
	// Name is the skill's name as listed (frontmatter name, else its
	// folder; PLUGIN:NAME for a plugin's skill).
	Name        string
	Description string
	// WhenToUse is listed by Claude Code after the description.
	WhenToUse string
	// Path is the SKILL.md file's absolute path (Codex lists it, from
	// its skills folder).
	Path string
}

// Listing is what one agent's skills list costs: the measure of a set of
// skills against the agent's budget ([ContextBudget.Measure]).
type Listing struct {
	Skills int `json:"skills"`
	// Chars is the length of the list in full, in the agent's unit
	// (characters).
	Chars  int `json:"chars"`
	Tokens int `json:"approx_tokens"`
	// Budget is the agent's budget this was measured against.
	Budget *ContextBudget `json:"budget,omitempty"`
	// OverBy is how far the list goes past the budget (0: it fits).
	OverBy int `json:"over_by_chars"`
	// Shortened are the skills the agent cuts first: entries past the
	// per-skill cut, then, when the list is over the budget, the ones it
	// shortens, drops the description of, or leaves out.
	Shortened []CutSkill `json:"shortened"`
}

// What an agent does to a skill's entry (CutSkill.Action).
const (
	// CutTruncated: description and when_to_use cut at the per-skill
	// limit (Claude Code).
	CutTruncated = "truncated"
	// CutDescriptionDropped: the description dropped, the name listed
	// (Claude Code, for the skills used least).
	CutDescriptionDropped = "description-dropped"
	// CutShortened: the description shortened to its share (Codex).
	CutShortened = "shortened"
	// CutDescriptionRemoved: every description removed (Codex, when the
	// lines without them are over the budget).
	CutDescriptionRemoved = "description-removed"
	// CutLeftOut: the skill is not listed at all (Codex).
	CutLeftOut = "left-out"
)

// CutSkill is a skill whose entry an agent cuts.
type CutSkill struct {
	Skill string `json:"skill"`
	// Action is what the agent does to the entry (CutTruncated, ...).
	Action string `json:"action"`
	// Chars is the entry's length in full.
	Chars int `json:"chars"`
	// Keeps is how many characters of its description the agent keeps
	// (0: none, or the skill is left out).
	Keeps  int    `json:"keeps_chars"`
	Reason string `json:"reason"`
}

// Measure computes what the agent's list of entries costs, and what the
// agent cuts when it is over its budget.
func (b ContextBudget) Measure(entries []ListingEntry) Listing {
	l := Listing{Skills: len(entries), Shortened: []CutSkill{}}
	if b.Agent != "" {
		bb := b
		l.Budget = &bb
	}
	switch b.style {
	case listClaude:
		b.measureClaude(entries, &l)
	case listCodex:
		b.measureCodex(entries, &l)
	default:
		for _, e := range entries {
			l.Chars += runes(e.Name) + runes(e.Description)
		}
	}
	l.Tokens = (l.Chars + CharsPerToken - 1) / CharsPerToken
	if b.Chars > 0 && l.Chars > b.Chars {
		l.OverBy = l.Chars - b.Chars
	}
	return l
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// measureClaude: every name, each description plus when_to_use cut at
// PerSkill; over the budget Claude Code drops the descriptions of the
// skills used least. skillstore cannot know which those are, so it names
// the longest descriptions, the fewest whose dropping fits the list.
func (b ContextBudget) measureClaude(entries []ListingEntry, l *Listing) {
	type entry struct {
		name        string
		full, text  int
		perSkillCut bool
	}
	list := make([]entry, 0, len(entries))
	for _, e := range entries {
		text := runes(e.Description) + runes(e.WhenToUse)
		en := entry{name: e.Name, full: runes(e.Name) + text, text: text}
		if b.PerSkill > 0 && text > b.PerSkill {
			en.text, en.perSkillCut = b.PerSkill, true
			l.Shortened = append(l.Shortened, CutSkill{Skill: e.Name, Action: CutTruncated, Chars: en.full, Keeps: b.PerSkill,
				Reason: fmt.Sprintf("description and when_to_use cut at %s's %d characters per skill", b.Agent, b.PerSkill)})
		}
		l.Chars += runes(e.Name) + en.text
		list = append(list, en)
	}
	over := l.Chars - b.Chars
	if b.Chars == 0 || over <= 0 {
		return
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].text > list[j].text })
	for _, en := range list {
		if over <= 0 || en.text == 0 {
			break
		}
		over -= en.text
		if en.perSkillCut {
			// Named once: the cut above; the drop makes it name only.
			for i := range l.Shortened {
				if l.Shortened[i].Skill == en.name {
					l.Shortened[i].Keeps, l.Shortened[i].Action = 0, CutDescriptionDropped
					l.Shortened[i].Reason = fmt.Sprintf("description dropped if among the least used (the list is %d characters over %s's budget)", l.Chars-b.Chars, b.Agent)
				}
			}
			continue
		}
		l.Shortened = append(l.Shortened, CutSkill{Skill: en.name, Action: CutDescriptionDropped, Chars: en.full,
			Reason: fmt.Sprintf("description dropped if among the least used (the list is %d characters over %s's budget)", l.Chars-b.Chars, b.Agent)})
	}
}

// codexLine is the length of a Codex list line for e with k characters
// of its description: "- NAME: DESC (file: PATH)\n", or without a
// description "- NAME: (file: PATH)\n". PATH is the SKILL.md's path with
// its skills folder written as an alias from a table of roots
// ("r0/NAME/SKILL.md"), as codex-cli 0.171 lists it (make e2e-codex
// shows its list); the table itself, a line per root, is not counted.
func codexLine(e ListingEntry, k int) int {
	path := "r0/" + filepath.Base(filepath.Dir(e.Path)) + "/SKILL.md"
	n := runes(e.Name) + runes(path) + len("- : (file: )\n")
	if k > 0 {
		n += k + 1
	}
	return n
}

// measureCodex follows Codex's list: lines in full when they fit; else
// every description gets the same share of what the lines without
// descriptions leave (a short one keeps all of it); when even those do
// not fit, no description is listed and the skills past the budget, in
// name order, are left out. Codex's own bundled skills (imagegen,
// skill-creator, ...) share the budget; they are not counted here.
func (b ContextBudget) measureCodex(entries []ListingEntry, l *Listing) {
	minimum := 0
	for _, e := range entries {
		l.Chars += codexLine(e, runes(e.Description))
		minimum += codexLine(e, 0)
	}
	if b.Chars == 0 || l.Chars <= b.Chars {
		return
	}
	over := l.Chars - b.Chars
	if minimum <= b.Chars {
		keeps := shareDescriptions(entries, b.Chars-minimum)
		for i, e := range entries {
			if d := runes(e.Description); keeps[i] < d {
				l.Shortened = append(l.Shortened, CutSkill{Skill: e.Name, Action: CutShortened, Chars: codexLine(e, d), Keeps: keeps[i],
					Reason: fmt.Sprintf("description shortened to %d of %d characters (the list is %d characters over %s's budget)", keeps[i], d, over, b.Agent)})
			}
		}
		return
	}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, c := entries[order[i]], entries[order[j]]
		return a.Name < c.Name || a.Name == c.Name && a.Path < c.Path
	})
	used := 0
	for _, i := range order {
		e := entries[i]
		action, reason := CutDescriptionRemoved, fmt.Sprintf("description removed (the list is %d characters over %s's budget even without descriptions)", over, b.Agent)
		if used += codexLine(e, 0); used > b.Chars {
			action, reason = CutLeftOut, fmt.Sprintf("left out of the list (%s lists skills in name order until its budget is spent)", b.Agent)
		}
		l.Shortened = append(l.Shortened, CutSkill{Skill: e.Name, Action: action, Chars: codexLine(e, runes(e.Description)), Reason: reason})
	}
}

// shareDescriptions splits room characters among the entries'
// descriptions evenly: each keeps up to a common length, a description
// costing one character more than its text (the space before it), and
// what is left goes one character at a time in the entries' order.
func shareDescriptions(entries []ListingEntry, room int) []int {
	lens := make([]int, len(entries))
	longest := 0
	for i, e := range entries {
		lens[i] = runes(e.Description)
		longest = max(longest, lens[i])
	}
	cost := func(level int) int {
		total := 0
		for _, n := range lens {
			if k := min(n, level); k > 0 {
				total += k + 1
			}
		}
		return total
	}
	level := sort.Search(longest+1, func(l int) bool { return cost(l) > room }) - 1
	keeps := make([]int, len(entries))
	left := room - cost(level)
	for i, n := range lens {
		keeps[i] = min(n, level)
		need := 1
		if keeps[i] == 0 {
			need = 2
		}
		if n > keeps[i] && left >= need {
			keeps[i]++
			left -= need
		}
	}
	return keeps
}
