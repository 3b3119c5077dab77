package store

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// UnknownSkillError reports a skill name with no published ref.
type UnknownSkillError struct{ Name string }

func (e *UnknownSkillError) Error() string { return fmt.Sprintf("unknown skill %q", e.Name) }

// UnknownVersionError reports a version name that matches no version.
type UnknownVersionError struct {
	Skill  string
	Spec   string
	Latest int
}

func (e *UnknownVersionError) Error() string {
	return fmt.Sprintf("%s has no version %q (latest is v%d)", e.Skill, e.Spec, e.Latest)
}

// AmbiguousVersionError reports a commit prefix matching several versions.
type AmbiguousVersionError struct {
	Skill   string
	Prefix  string
	Matches []Version
}

func (e *AmbiguousVersionError) Error() string {
	var names []string
	for _, v := range e.Matches {
		names = append(names, fmt.Sprintf("v%d (%s)", v.Number, v.Commit.String()[:12]))
	}
	return fmt.Sprintf("%s@%s is ambiguous: it matches %s", e.Skill, e.Prefix, strings.Join(names, ", "))
}

// InvalidNameError reports a malformed skill, version or remote name.
type InvalidNameError = skillfs.InvalidNameError

// splitVersionSpec splits "NAME@REV" into NAME and REV ("" when absent).
func splitVersionSpec(spec string) (name, rev string) {
	name, rev, _ = strings.Cut(spec, "@")
	return name, rev
}

// Compiled on first use rather than at start-up, which every command pays.
var hexPrefixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{4,40}$`) })

// Resolve finds the version named by spec: "NAME" (latest), "NAME@vN" or
// "NAME@<commit prefix>" (at least 4 hex digits, among NAME's versions).
func (r *Reader) Resolve(spec string) (Version, error) {
	name, rev := splitVersionSpec(spec)
	if err := CheckQualifiedName(name); err != nil {
		return Version{}, err
	}
	if rev == "" && strings.HasSuffix(spec, "@") {
		return Version{}, &InvalidNameError{Name: spec, Reason: "nothing after @: a version is vN, a commit prefix of at least 4 hex digits, or latest"}
	}
	head, err := r.Head(name)
	if err != nil {
		return Version{}, err
	}
	switch {
	case rev == "" || rev == "latest":
		return head, nil
	case len(rev) > 1 && rev[0] == 'v' && isDigits(rev[1:]):
		n, _ := strconv.Atoi(rev[1:])
		var found *Version
		err := r.WalkVersions(name, func(v Version) bool {
			if v.Number == n {
				found = &v
			}
			return v.Number > n
		})
		if err != nil {
			return Version{}, err
		}
		if found == nil {
			return Version{}, &UnknownVersionError{Skill: name, Spec: rev, Latest: head.Number}
		}
		return *found, nil
	case hexPrefixRE().MatchString(strings.ToLower(rev)):
		prefix := strings.ToLower(rev)
		var matches []Version
		err := r.WalkVersions(name, func(v Version) bool {
			if strings.HasPrefix(v.Commit.String(), prefix) {
				matches = append(matches, v)
			}
			return true
		})
		if err != nil {
			return Version{}, err
		}
		switch len(matches) {
		case 0:
			return Version{}, &UnknownVersionError{Skill: name, Spec: rev, Latest: head.Number}
		case 1:
			return matches[0], nil
		default:
			return Version{}, &AmbiguousVersionError{Skill: name, Prefix: rev, Matches: matches}
		}
	default:
		return Version{}, &InvalidNameError{Name: spec, Reason: "a version is vN, a commit prefix of at least 4 hex digits, or latest"}
	}
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
