package plugins

import (
	"cmp"
	"fmt"

	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/semver"
	"github.com/skillstore/skillstore/store"
)

// DependencyStatus is how the store meets one dependency of a plugin
// (pluginfmt.Dependency: Claude Code's plugin "dependencies").
type DependencyStatus struct {
	pluginfmt.Dependency
	// By is the plugin of the store that meets it, Version that
	// plugin's version (its release, else its manifest's version).
	By      string `json:"by,omitempty"`
	Version string `json:"installed_version,omitempty"`
	// Added is set when plugin add added the dependency for it.
	Added bool `json:"added,omitempty"`
	// Unmet says why the dependency is not met ("" when it is).
	Unmet string `json:"unmet,omitempty"`
}

// SameMarketplace reports whether dependency d of plugin p (from the
// marketplace named mkt in its file, "" when unknown) is to be found in
// p's own marketplace: a bare name, or one qualified with that name.
func SameMarketplace(p *Plugin, d pluginfmt.Dependency, mkt string) bool {
	return p.Marketplace != "" && (d.Marketplace == "" || d.Marketplace == mkt)
}

// CheckDependency finds what meets dependency d of plugin p among the
// store's plugins recs: a plugin of p's marketplace listed under d's
// name (SameMarketplace), or for another marketplace any plugin of that
// entry name or id; then its version against d's range.
func CheckDependency(recs []*Plugin, p *Plugin, d pluginfmt.Dependency, mkt string) DependencyStatus {
	st := DependencyStatus{Dependency: d}
	same := SameMarketplace(p, d, mkt)
	var by *Plugin
	for _, q := range recs {
		if q.ID == p.ID {
			continue
		}
		if same && q.Marketplace == p.Marketplace && EntryName(q) == d.Name || !same && (EntryName(q) == d.Name || q.ID == d.Name) {
			by = q
			break
		}
	}
	switch {
	case by == nil && p.Marketplace == "":
		st.Unmet = "the plugin is not from a marketplace, so the store cannot find it: add it with 'skillstore plugin add SOURCE'"
		return st
	case by == nil && same:
		st.Unmet = fmt.Sprintf("the marketplace %s lists no plugin %q", p.Marketplace, d.Name)
		return st
	case by == nil:
		st.Unmet = fmt.Sprintf("it is from the marketplace %q, which the store has no plugin %q of: add it with 'skillstore plugin add SOURCE#%s'", d.Marketplace, d.Name, d.Name)
		return st
	}
	st.By, st.Version = by.ID, cmp.Or(by.Release, by.Version)
	if by.Disabled {
		st.Unmet = fmt.Sprintf("plugin %s is disabled: 'skillstore plugin enable %s' turns it on", by.ID, by.ID)
		return st
	}
	if d.Version == "" {
		return st
	}
	r, err := semver.ParseRange(d.Version)
	if err != nil {
		st.Unmet = err.Error()
		return st
	}
	if st.Version == "" {
		st.Unmet = fmt.Sprintf("plugin %s gives no version to match %s", by.ID, d.Version)
		return st
	}
	v, err := semver.Parse(st.Version)
	switch {
	case err != nil:
		st.Unmet = fmt.Sprintf("plugin %s's version %q is not a semantic version to match %s", by.ID, st.Version, d.Version)
	case !r.Match(v):
		st.Unmet = fmt.Sprintf("plugin %s is at %s, outside %s", by.ID, st.Version, d.Version)
	}
	return st
}

// CheckDependencies is [CheckDependency] of each of deps, against the
// plugins r holds.
func CheckDependencies(r *store.Reader, p *Plugin, deps []pluginfmt.Dependency, mkt string) ([]DependencyStatus, error) {
	if len(deps) == 0 {
		return nil, nil
	}
	recs, err := List(r)
	if err != nil {
		return nil, err
	}
	out := make([]DependencyStatus, 0, len(deps))
	for _, d := range deps {
		out = append(out, CheckDependency(recs, p, d, mkt))
	}
	return out, nil
}
