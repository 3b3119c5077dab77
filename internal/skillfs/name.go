package skillfs

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// InvalidNameError reports a malformed name: a skill's, and in the store a
// version's or a remote's.
type InvalidNameError struct {
	Name   string
	Reason string
}

func (e *InvalidNameError) Error() string {
	return fmt.Sprintf("invalid name %q: %s", e.Name, e.Reason)
}

// Compiled on first use rather than at start-up, which every command pays.
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`) })

// CheckName accepts skill names that are safe as a git ref component and a
// folder name: lowercase letters, digits, '.', '_' and '-', starting with a
// letter or digit, at most 64 characters, no "..", not ending in "." or
// ".lock". (The skill specification is stricter; discover enforces it.)
// A skill's folder and its name in the store are the same string, so a
// plugin's layout and the store apply this one rule.
func CheckName(name string) error {
	switch {
	case len(name) > 64:
		return &InvalidNameError{Name: name, Reason: "longer than 64 characters"}
	case !namePattern().MatchString(name):
		return &InvalidNameError{Name: name, Reason: "use lowercase letters, digits and hyphens"}
	case strings.Contains(name, ".."), strings.HasSuffix(name, "."), strings.HasSuffix(name, ".lock"):
		return &InvalidNameError{Name: name, Reason: `no "..", and no "." or ".lock" at the end`}
	}
	return nil
}
