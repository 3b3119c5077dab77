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
// A Selection holds all the skills, or those an Only pattern selects,
// minus those an Except pattern selects.
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
// those an Only pattern selects, minus those an Except pattern selects.
type Selection struct {
	Only, Except []string
}

// Wants reports whether the selection holds the skill named name (a store
// name, NAME or PLUGIN:NAME).
func (s Selection) Wants(name string, tags Tags) bool {
	if len(s.Only) > 0 && !matchAny(s.Only, name, tags) {
		return false
	}
	return !matchAny(s.Except, name, tags)
}

// IsAll reports whether the selection holds every skill.
func (s Selection) IsAll() bool { return len(s.Only) == 0 && len(s.Except) == 0 }

// String renders the selection for people: "*", "deploy, @work",
// "* except @rare".
func (s Selection) String() string {
	only := "*"
	if len(s.Only) > 0 {
		only = strings.Join(s.Only, ", ")
	}
	if len(s.Except) == 0 {
		return only
	}
	return only + " except " + strings.Join(s.Except, ", ")
}

func matchAny(patterns []string, name string, tags Tags) bool {
	for _, p := range patterns {
		if Match(p, name, tags) {
			return true
		}
	}
	return false
}

// Match reports whether pattern selects the skill named name.
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

// Check reports whether pattern can be read, saying what is wrong.
func Check(pattern string) error {
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
