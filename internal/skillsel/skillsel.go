// Package skillsel reads the patterns that choose skills for a target
// (target add --only and --except, and the tag command): one reading for
// every command, so a pattern means the same wherever it is given.
//
// A pattern is one of:
//
//   - @TAG: the skills the user tagged TAG (skillstore tag add);
//   - a glob (path.Match) with a ':' in it, on qualified names
//     PLUGIN:NAME ("superpowers:*", "*:review");
//   - a glob without ':', on a managed skill's name ("deploy", "git-*")
//     and on plugin names, so a plugin's name selects all its skills
//     ("superpowers"); "*" selects everything.
//
// A Selection holds all the skills, or those its Only list selects, minus
// those an Except pattern selects. "!" means "leave out" wherever it is
// taken, as in plugin add --skill: the Only list is read in order, the
// last pattern that selects a skill deciding, "!PATTERN" leaving it out,
// and a list that starts with "!PATTERN" starts from every skill
// ("--only '!beta'" is every skill but beta; "--only 'git-*' --only
// '!git-old'" the git- skills but git-old). Where nothing is read in
// order to leave a skill out of (--except, which leaves out already; the
// tag command, which names the skills it changes) a "!" is refused with
// where it belongs ([CheckPlain]).
package skillsel

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
)

// Tags maps a tag to the store names of the skills it holds.
type Tags map[string]map[string]bool

// Selection is a target's choice of skills: every skill (Only empty) or
// those the Only list selects (read in order; "!PATTERN" leaves out),
// minus those an Except pattern selects.
type Selection struct {
	Only, Except []string
}

// Wants reports whether the selection holds the skill named name (a store
// name, NAME or PLUGIN:NAME).
func (s Selection) Wants(name string, tags Tags) bool {
	if len(s.Only) > 0 && !lastMatch(s.Only, name, tags) {
		return false
	}
	return !matchAny(s.Except, name, tags)
}

// lastMatch reads a non-empty Only list: the last pattern selecting name
// decides, "!PATTERN" leaving it out; a list starting with "!PATTERN"
// starts from every skill.
func lastMatch(patterns []string, name string, tags Tags) bool {
	_, in := strings.CutPrefix(patterns[0], "!")
	for _, p := range patterns {
		body, out := strings.CutPrefix(p, "!")
		if Match(body, name, tags) {
			in = !out
		}
	}
	return in
}

// IsAll reports whether the selection holds every skill.
func (s Selection) IsAll() bool { return len(s.Only) == 0 && len(s.Except) == 0 }

// String renders the selection for people: "*", "deploy, @work",
// "* except @rare".
func (s Selection) String() string {
	only := "*"
	if len(s.Only) > 0 {
		only = strings.Join(s.Only, ", ")
		if strings.HasPrefix(s.Only[0], "!") {
			only = "*, " + only // it starts from every skill
		}
	}
	if len(s.Except) == 0 {
		return only
	}
	return only + " except " + strings.Join(s.Except, ", ")
}

// matchAny reports whether a pattern of an Except list selects name (a
// "!" there, which CheckPlain refuses, still leaves out).
func matchAny(patterns []string, name string, tags Tags) bool {
	for _, p := range patterns {
		if Match(strings.TrimPrefix(p, "!"), name, tags) {
			return true
		}
	}
	return false
}

// Match reports whether pattern (without "!") selects the skill named
// name.
func Match(pattern, name string, tags Tags) bool {
	if tag, ok := strings.CutPrefix(pattern, "@"); ok {
		return tags[tag][name]
	}
	if ok, _ := path.Match(pattern, name); ok {
		return true
	}
	if strings.Contains(pattern, ":") {
		return false
	}
	plugin, _, qualified := strings.Cut(name, ":")
	ok, _ := path.Match(pattern, plugin)
	return qualified && ok
}

// ErrPattern is the error of a pattern skillsel cannot read.
var ErrPattern = errors.New("not a skill pattern")

// ErrLeaveOut is the error of a "!PATTERN" where there is no list to
// leave a skill out of (see CheckPlain).
var ErrLeaveOut = errors.New("'!' leaves skills out of an --only list")

// Check reports whether pattern can be read as one of an Only list's,
// saying what is wrong: "!PATTERN" (leave out) is one.
func Check(pattern string) error {
	body, _ := strings.CutPrefix(pattern, "!")
	if err := check(body); err != nil && body != pattern {
		return fmt.Errorf("%q: %w", pattern, err)
	} else if err != nil {
		return err
	}
	return nil
}

// CheckPlain is Check for a pattern that is read on its own, with no list
// to leave a skill out of: an --except pattern (which leaves out already)
// or one naming the skills a command changes (tag add, tag rm). A "!"
// there is refused with an error matching ErrLeaveOut that says what to
// give instead (instead, where PATTERN stands for the pattern without its
// "!").
func CheckPlain(pattern, instead string) error {
	if body, ok := strings.CutPrefix(pattern, "!"); ok {
		return fmt.Errorf("%q: %w; %s", pattern, ErrLeaveOut, strings.ReplaceAll(instead, "PATTERN", body))
	}
	return check(pattern)
}

func check(pattern string) error {
	if strings.HasPrefix(pattern, "!") {
		return fmt.Errorf("%q: %w: one '!' leaves out", pattern, ErrPattern)
	}
	if tag, ok := strings.CutPrefix(pattern, "@"); ok {
		if err := CheckTag(tag); err != nil {
			return fmt.Errorf("%q: %w", pattern, err)
		}
		return nil
	}
	if pattern == "" || strings.ContainsAny(pattern, "/\\") || strings.Count(pattern, ":") > 1 {
		return fmt.Errorf("%q: %w: give NAME, PLUGIN:NAME or a plugin's name (globs allowed), or @TAG", pattern, ErrPattern)
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("%q: %w: %v", pattern, ErrPattern, err)
	}
	return nil
}

// Compiled on first use rather than at start-up.
var tagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`) })

// CheckTag reports whether tag can name a tag: lowercase letters, digits
// and hyphens, at most 64.
func CheckTag(tag string) error {
	if !tagRE().MatchString(tag) {
		return fmt.Errorf("tag %q: use lowercase letters, digits and hyphens (at most 64)", tag)
	}
	return nil
}
