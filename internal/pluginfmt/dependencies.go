package pluginfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/semver"
)

// Dependency is one entry of a Claude Code plugin's "dependencies" (in
// its plugin.json or its marketplace entry): another plugin it needs,
// from the same marketplace unless Marketplace names another, in the
// version range Version ("" for any).
//
// The file holds each entry as a string, "name" or "name@marketplace",
// or as an object {"name", "version", "marketplace"}, each a string.
type Dependency struct {
	Name        string `json:"name"`
	Marketplace string `json:"marketplace,omitempty"`
	Version     string `json:"version,omitempty"`
}

// String renders the dependency as the manifest could write it:
// "name@marketplace ^1.2".
func (d Dependency) String() string {
	s := d.Name
	if d.Marketplace != "" {
		s += "@" + d.Marketplace
	}
	if d.Version != "" {
		s += " " + d.Version
	}
	return s
}

// readDependencies reads a "dependencies" value; absent or null is none.
// A name that is empty, a version range that does not parse, or an entry
// that is neither a string nor an object is an error naming the entry.
func readDependencies(raw json.RawMessage) ([]Dependency, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New(`"dependencies" must be a list of plugin names or {"name", "version"} objects`)
	}
	var out []Dependency
	for i, e := range list {
		var d Dependency
		var s string
		if json.Unmarshal(e, &s) == nil {
			d.Name, d.Marketplace, _ = strings.Cut(s, "@")
		} else if err := json.Unmarshal(e, &d); err != nil {
			return nil, fmt.Errorf(`"dependencies"[%d] must be a plugin name or an object {"name", "version", "marketplace"} of strings`, i)
		}
		d.Name, d.Marketplace, d.Version = strings.TrimSpace(d.Name), strings.TrimSpace(d.Marketplace), strings.TrimSpace(d.Version)
		if d.Name == "" {
			return nil, fmt.Errorf(`"dependencies"[%d] has no plugin name`, i)
		}
		if d.Version != "" {
			if _, err := semver.ParseRange(d.Version); err != nil {
				return nil, fmt.Errorf(`"dependencies"[%d] (%s): %w`, i, d.Name, err)
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// withDependencies is deps and, after them, those of more whose plugin
// deps does not name (a marketplace entry's list beside the plugin's own).
func withDependencies(deps, more []Dependency) []Dependency {
	for _, m := range more {
		found := false
		for _, d := range deps {
			found = found || d.Name == m.Name && d.Marketplace == m.Marketplace
		}
		if !found {
			deps = append(deps, m)
		}
	}
	return deps
}

// Entry applies what a marketplace entry says of the plugin beside its
// manifest: defaultEnabled (nil: not said) wins, and its dependencies
// join the manifest's.
func (p *PluginLayout) Entry(defaultEnabled *bool, deps []Dependency) {
	if defaultEnabled != nil {
		p.DefaultDisabled = !*defaultEnabled
	}
	p.Dependencies = withDependencies(slices.Clone(deps), p.Dependencies)
}
