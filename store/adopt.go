package store

import (
	"context"
	"errors"
	"fmt"
)

// Taking an installation over (skillstore adopt): skill folders another
// tool installed, with the upstream its lock file names when it names
// one. Everything happens in one transaction, so a dry run (DryRun) sees
// the plugin it would add when it links a skill to it, and reports what
// the real run would do.

// AdoptSkill is one skill folder to take over.
type AdoptSkill struct {
	// Dir is the installed folder (symlinks resolved).
	Dir string
	// Upstream is the source the installer recorded; zero for a skill
	// with no known source, which is imported as a managed skill.
	Upstream Source
	// Hint is what the installer recorded of the upstream: a lock file's
	// skillFolderHash (the folder's git tree at install), tried first as an
	// exact base, or the commit installed from (Claude Code's
	// gitCommitSha), which is the base when it holds the skill. Zero when
	// unknown.
	Hint Hash
}

// AdoptResult is what Adopt did with one AdoptSkill.
type AdoptResult struct {
	Dir  string `json:"dir"`
	Name string `json:"name,omitempty"`
	// Imported is the managed version recorded from the folder (0: the
	// store held these files already).
	Imported int `json:"imported,omitempty"`
	// Plugin is the plugin the skill was linked to; PluginAdded reports
	// that Adopt added it.
	Plugin      string      `json:"plugin,omitempty"`
	PluginAdded bool        `json:"plugin_added,omitempty"`
	Link        *LinkResult `json:"link,omitempty"`
	// Linked reports that the skill was that plugin's already.
	Linked bool   `json:"linked_already,omitempty"`
	Err    error  `json:"-"`
	Error  string `json:"error,omitempty"`
}

// Adopt imports each folder as a managed skill (unless the store holds
// those files already) and links the ones with an upstream to a plugin of
// that source: an existing plugin with the same source, else one added
// for it, with nothing selected until the link selects the skill. A
// failing entry carries Err; the others are still taken over.
func (s *Store) Adopt(ctx context.Context, skills []AdoptSkill, opts AddOptions) ([]AdoptResult, error) {
	// The sources are fetched before the write lock is taken, as
	// AddPlugin does, so the transaction reads their objects.
	var reqs []FetchRequest
	seen := map[Source]bool{}
	for _, sk := range skills {
		if sk.Upstream.Kind == SourceGit && !seen[sk.Upstream] {
			seen[sk.Upstream] = true
			reqs = append(reqs, FetchRequest{Source: sk.Upstream})
		}
	}
	pre := s.Prefetch(ctx, reqs)
	defer pre.Close()
	var out []AdoptResult
	err := s.Update(ctx, func(tx *Tx) error {
		tx.UsePrefetch(pre)
		out = out[:0]
		for _, sk := range skills {
			r := tx.adoptOne(ctx, sk, opts)
			if r.Err != nil {
				r.Error = r.Err.Error()
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

func (tx *Tx) adoptOne(ctx context.Context, sk AdoptSkill, opts AddOptions) AdoptResult {
	r := AdoptResult{Dir: sk.Dir}
	preps, err := tx.prepareAll(ctx, []string{sk.Dir}, opts)
	if err != nil {
		r.Err = err
		return r
	}
	p := preps[0]
	r.Name = p.Name
	if p.Err != nil {
		r.Err = p.Err
		return r
	}
	if plugin, _ := SplitName(p.Name); plugin != "" {
		// The folder holds a version of that plugin's skill (see
		// chooseAddName): adopted already when it is the latest.
		r.Plugin, r.Linked = plugin, true
		if !p.Unchanged {
			r.Err = fmt.Errorf("skill %s is plugin %s's already, with the files of an older version in %s: take them in with 'skillstore add --into %s %s'", p.Name, plugin, sk.Dir, p.Name, sk.Dir)
		}
		return r
	}
	if sk.Upstream.URL != "" {
		// A plugin of that source that mirrors the skill already: the
		// folder is compared with that plugin's skill "ID:NAME".
		if id := tx.pluginOwning(sk.Upstream, p.Name); id != "" {
			name := QualifiedName(id, p.Name)
			as := opts
			as.As = name
			if again, err := tx.prepareAll(ctx, []string{sk.Dir}, as); err == nil && again[0].Err == nil {
				p = again[0]
			}
			r.Name, r.Plugin, r.Linked = name, id, true
			if p.Unchanged {
				return r
			}
			r.Err = fmt.Errorf("skill %s is plugin %s's already, with other files than %s: take them in with 'skillstore add --as %s %s'", name, id, sk.Dir, name, sk.Dir)
			return r
		}
	}
	if sk.Upstream.URL != "" && !p.Unchanged {
		// The folder goes through the managed name on its way to the
		// plugin: a managed skill already there with other files (written
		// by hand, or from another source) must not get them as a version.
		if _, taken := tx.Ref(SkillRef(p.Name)); taken {
			r.Err = fmt.Errorf("the managed skill %s holds other files than %s, which comes from %s: not taken over; to keep both, run 'skillstore plugin add %s --skill %s', then 'skillstore add --as PLUGIN:%s %s'", p.Name, sk.Dir, sk.Upstream, sk.Upstream, p.Name, p.Name, sk.Dir)
			return r
		}
	}
	if !p.Unchanged {
		rec, err := tx.recordAll([]prepared{p}, opts)
		if err != nil {
			r.Err = err
			return r
		}
		r.Imported = rec[0].Version.Number
	}
	if sk.Upstream.URL == "" {
		return r
	}
	id, added, err := tx.pluginForSource(ctx, sk.Upstream)
	if err != nil {
		r.Err = err
		return r
	}
	r.Plugin, r.PluginAdded = id, added
	link, err := tx.linkSkill(id, p.Name, sk.Hint)
	if errors.Is(err, ErrNoChange) {
		r.Linked = true
		return r
	}
	r.Link, r.Err = link, err
	return r
}

// pluginForSource is the id of the plugin with source src, added with an
// empty selection (and src fetched) when the store has none.
func (tx *Tx) pluginForSource(ctx context.Context, src Source) (string, bool, error) {
	plugins, err := tx.Plugins()
	if err != nil {
		return "", false, err
	}
	for _, p := range plugins {
		if p.Source == src {
			return p.ID, false, nil
		}
	}
	layout, fetched, _, done, err := tx.readSource(ctx, src)
	if err != nil {
		return "", false, err
	}
	done()
	name, market := "", ""
	switch {
	case len(layout.Plugins) == 1:
		name = layout.Plugins[0].Name
	case len(layout.Plugins) == 0 && len(layout.Remote) == 1 && src.Selector != "":
		// A marketplace entry that lives in another repository: the
		// plugin's source is that repository.
		// The entry is its marketplace author's word: no local source.
		entry, err := remoteEntrySource(layout.Remote[0], nil)
		if err != nil {
			return "", false, fmt.Errorf("source %s: plugin %s: %w", src, src.Selector, err)
		}
		for _, p := range plugins {
			if p.Source == entry {
				return p.ID, false, nil
			}
		}
		if fetched, err = tx.fetchEntry(ctx, entry); err != nil {
			return "", false, fmt.Errorf("source %s: plugin %s: %w", src, src.Selector, err)
		}
		market = marketplaceName(src)
		src, name = entry, layout.Remote[0].Name
	default:
		return "", false, fmt.Errorf("source %s holds %d plugins: add the one to link with 'skillstore plugin add', then run adopt again", src, len(layout.Plugins)+len(layout.Remote))
	}
	id := pluginID("", name, src)
	if _, err := tx.Plugin(id); err == nil {
		return "", false, fmt.Errorf("plugin %q: %w (from another source than %s)", id, ErrPluginExists, src)
	}
	p := &Plugin{ID: id, Source: src, Skills: []string{}, Select: []string{"!*"}, Marketplace: market}
	if src.Kind == SourceGit {
		tx.SetRef(SourceRef(id), fetched.Commit)
	}
	if err := tx.putPlugin(p); err != nil {
		return "", false, err
	}
	tx.NoteState(fmt.Sprintf("plugin %s: added from %s to adopt its installed skills", id, src), Trailer{Key: TrailerPlugin, Value: id})
	return id, true, nil
}

// pluginOwning is the id of a plugin with source src that owns skill,
// "" for none.
func (tx *Tx) pluginOwning(src Source, skill string) string {
	plugins, err := tx.Plugins()
	if err != nil {
		return ""
	}
	for _, p := range plugins {
		if p.Source == src && p.Owns(skill) {
			return p.ID
		}
	}
	return ""
}
