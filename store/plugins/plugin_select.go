package plugins

import (
	"fmt"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"path"
	"slices"
	"strings"
)

// A plugin's selection says which of its upstream's skills it mirrors: a
// list of skill names or path.Match globs read in order, where the last
// pattern that matches a skill decides and "!PATTERN" leaves it out. An
// empty selection takes every skill; a selection given at add time that
// starts with "!PATTERN" starts from every skill ("*" is put first).
// Sync mirrors a new upstream skill only when the selection takes it.

// Selects reports whether the plugin's selection takes skill.
func (p *Plugin) Selects(skill string) bool {
	return len(p.Select) == 0 || lastMatch(p.Select, skill)
}

// lastMatch applies a non-empty selection: the last pattern matching name
// decides, and a name no pattern matches is left out.
func lastMatch(patterns []string, name string) bool {
	in := false
	for _, pat := range patterns {
		body, neg := strings.CutPrefix(pat, "!")
		if ok, _ := path.Match(body, name); ok {
			in = !neg
		}
	}
	return in
}

// matches reports whether pattern (without its "!") matches name.
func matches(pattern, name string) bool {
	ok, _ := path.Match(strings.TrimPrefix(pattern, "!"), name)
	return ok
}

// CheckSkillPattern refuses a pattern that cannot name a skill: empty, with
// a "/", or malformed for path.Match.
func CheckSkillPattern(pattern string) error {
	body := strings.TrimPrefix(pattern, "!")
	if body == "" || strings.Contains(body, "/") {
		return fmt.Errorf("skill pattern %q: want a skill name or a glob such as 'doc*' (no '/')", pattern)
	}
	if _, err := path.Match(body, ""); err != nil {
		return fmt.Errorf("skill pattern %q: %w", pattern, err)
	}
	return nil
}

// SelectionError is a skill pattern that matches none of the skills a
// plugin source has.
type SelectionError struct {
	Source    string
	Patterns  []string // those that match nothing
	Available []string // every skill the source has, sorted
}

func (e *SelectionError) Error() string {
	quoted := make([]string, len(e.Patterns))
	for i, p := range e.Patterns {
		quoted[i] = fmt.Sprintf("%q", p)
	}
	avail := "none"
	if len(e.Available) > 0 {
		avail = strings.Join(e.Available, ", ")
	}
	return fmt.Sprintf("%s: skill pattern %s matches no skill (available: %s)", e.Source, strings.Join(quoted, ", "), avail)
}

// SkillSelection applies plugin add's --skill patterns across the plugins
// of one source: each plugin keeps the patterns that matched one of its
// skills, and a pattern that matches no skill of any plugin is an error.
type SkillSelection struct {
	patterns  []string
	used      map[string]bool
	available []string
}

// NewSkillSelection checks patterns; it returns nil when there are none
// (every skill is taken).
func NewSkillSelection(patterns []string) (*SkillSelection, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	for _, pat := range patterns {
		if err := CheckSkillPattern(pat); err != nil {
			return nil, err
		}
	}
	if strings.HasPrefix(patterns[0], "!") {
		patterns = append([]string{"*"}, patterns...)
	}
	return &SkillSelection{patterns: patterns, used: map[string]bool{}}, nil
}

// Pick returns which of one plugin's skills the patterns take and the
// plugin's own selection (nil: every skill).
func (s *SkillSelection) Pick(names []string) (taken map[string]bool, sel []string) {
	mine := map[string]bool{}
	taken = map[string]bool{}
	for _, name := range names {
		s.available = append(s.available, name)
		for _, pat := range s.patterns {
			if matches(pat, name) {
				s.used[pat], mine[pat] = true, true
			}
		}
		if lastMatch(s.patterns, name) {
			taken[name] = true
		}
	}
	return taken, normalSelection(slices.DeleteFunc(slices.Clone(s.patterns), func(p string) bool { return !mine[p] }))
}

// AddAvailable counts names among the skills --skill may name without
// picking from them: the skills of a plugin a source holds that is already
// in the store.
func (s *SkillSelection) AddAvailable(names ...string) {
	s.available = append(s.available, names...)
}

// Check reports the patterns that matched no skill of any plugin picked so
// far, naming the skills there are; picked is how many plugins kept a skill.
func (s *SkillSelection) Check(src Source, picked int) error {
	var unused []string
	for _, pat := range s.patterns {
		if !s.used[pat] && pat != "*" {
			unused = append(unused, pat)
		}
	}
	slices.Sort(s.available)
	s.available = slices.Compact(s.available)
	if len(unused) > 0 {
		return &SelectionError{Source: src.String(), Patterns: unused, Available: s.available}
	}
	if picked == 0 {
		return fmt.Errorf("%s: --skill selects none of its skills (available: %s)", src, strings.Join(s.available, ", "))
	}
	return nil
}

// NotSelectedReason is the note for a marketplace plugin --skill leaves out.
const NotSelectedReason = "none of its skills is selected by --skill"

// SelectLayout narrows a source's layout to the skills patterns select,
// for plugin add --skill. It returns each remaining plugin's selection:
// the patterns that matched one of its skills, in the order given. A
// marketplace plugin none of whose skills is selected is moved to
// layout.Skipped; a pattern that matches no skill of any plugin is a
// *SelectionError naming the skills there are.
func SelectLayout(src Source, layout *pluginfmt.Layout, patterns []string) ([][]string, error) {
	sel, err := NewSkillSelection(patterns)
	if err != nil || sel == nil {
		return make([][]string, len(layout.Plugins)), err
	}
	var kept []pluginfmt.PluginLayout
	var selections [][]string
	for _, pl := range layout.Plugins {
		names := make([]string, len(pl.Skills))
		for i, sk := range pl.Skills {
			names[i] = sk.Name
		}
		taken, mine := sel.Pick(names)
		skills := slices.DeleteFunc(slices.Clone(pl.Skills), func(sk pluginfmt.SkillDir) bool { return !taken[sk.Name] })
		if len(skills) == 0 {
			layout.Skipped = append(layout.Skipped, pluginfmt.SkippedPlugin{Name: pl.Name, Reason: NotSelectedReason})
			continue
		}
		pl.Skills = skills
		kept = append(kept, pl)
		selections = append(selections, mine)
	}
	if err := sel.Check(src, len(kept)); err != nil {
		return nil, err
	}
	layout.Plugins = kept
	return selections, nil
}

// normalSelection drops the patterns a later "*" or "!*" overrides, and
// a selection that takes everything ("*" with no exception after it).
func normalSelection(sel []string) []string {
	for i := len(sel) - 1; i > 0; i-- {
		if sel[i] == "*" || sel[i] == "!*" {
			sel = sel[i:]
			break
		}
	}
	if len(sel) > 1 && sel[0] == "!*" {
		sel = sel[1:]
	}
	if len(sel) == 0 || sel[0] == "*" && !slices.ContainsFunc(sel, func(p string) bool { return strings.HasPrefix(p, "!") }) {
		return nil
	}
	return sel
}

// includeSkills returns sel changed so that every name pattern matches is
// selected: an earlier "!pattern" is dropped, and pattern appended when
// that is not enough. Unchanged when they are all selected already.
func includeSkills(sel []string, pattern string, names []string) []string {
	if allSelected(sel, pattern, names) {
		return sel
	}
	out := slices.DeleteFunc(slices.Clone(sel), func(p string) bool { return p == "!"+pattern || p == pattern })
	if len(out) == 0 || !allSelected(out, pattern, names) {
		out = append(out, pattern)
	}
	return normalSelection(out)
}

// excludeSkills returns sel changed so that no name pattern matches is
// selected: pattern itself is dropped, and "!pattern" appended when that
// is not enough. Unchanged when none is selected.
func excludeSkills(sel []string, pattern string, names []string) []string {
	if noneSelected(sel, pattern, names) {
		return sel
	}
	if len(sel) == 0 {
		sel = []string{"*"}
	}
	out := slices.DeleteFunc(slices.Clone(sel), func(p string) bool { return p == pattern || p == "!"+pattern })
	if len(out) == 0 || !noneSelected(out, pattern, names) {
		out = append(out, "!"+pattern)
	}
	return normalSelection(out)
}

func allSelected(sel []string, pattern string, names []string) bool {
	for _, n := range names {
		if matches(pattern, n) && len(sel) > 0 && !lastMatch(sel, n) {
			return false
		}
	}
	return true
}

func noneSelected(sel []string, pattern string, names []string) bool {
	for _, n := range names {
		if matches(pattern, n) && (len(sel) == 0 || lastMatch(sel, n)) {
			return false
		}
	}
	return true
}
