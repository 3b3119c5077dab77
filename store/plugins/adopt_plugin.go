package plugins

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
)

// Which plugin an adopted skill joins. An installer records the repository
// a skill came from and, 'npx skills' does, the skill's folder in it
// (skillPath); a repository may hold several plugins (a marketplace such
// as anthropics/skills lists three, all in "./", each with a "skills"
// list). The skill joins the plugin whose tree holds that folder: one of
// the store's plugins from the same repository (SameRepository: however
// its source was typed, with or without "#plugin", whatever it selects),
// else the plugin of the repository that lists the folder, added with
// nothing selected until the link selects the skill.

// adoptPath is the skill's folder inside its repository as the installer
// recorded it, cleaned; "" when unknown or unusable (it is only compared
// with the folders a plugin's layout lists, never opened).
func (sk InstalledSkill) adoptPath() string {
	clean, err := cleanSourcePath(sk.SkillPath)
	if err != nil {
		return ""
	}
	if path.Base(clean) != store.SkillFile {
		return clean
	}
	if dir := path.Dir(clean); dir != "." {
		return dir
	}
	return ""
}

// findAdoptPlugin is the store's plugin from sk's repository that holds
// skill, nil for none: one whose layout lists the skill at sk's folder
// first (owning it already first of all), else, when no plugin lists that
// folder (the skill moved upstream since), the one plugin with a skill of
// that name. A source picking a plugin ("#name", Claude Code's installs)
// matches only that plugin when the folder is unknown.
func findAdoptPlugin(tx *store.Tx, sk InstalledSkill, skill string) (*Plugin, error) {
	plugins, err := List(tx.Reader)
	if err != nil {
		return nil, err
	}
	want := sk.adoptPath()
	var atPath, byName []*Plugin
	for _, p := range plugins {
		if !SameRepository(p.Source, sk.Upstream) {
			continue
		}
		if want == "" && sk.Upstream.Selector != "" && EntryName(p) != sk.Upstream.Selector && p.Source.Selector != sk.Upstream.Selector {
			continue
		}
		dir, ok := pluginSkillDir(tx, p, skill)
		switch {
		case !ok:
		case want == "" || dir == want:
			atPath = append(atPath, p)
		default:
			byName = append(byName, p)
		}
	}
	if len(atPath) == 0 && len(byName) == 1 {
		atPath = byName
	}
	for _, p := range atPath {
		if p.Owns(skill) {
			return p, nil
		}
	}
	if len(atPath) > 0 {
		return atPath[0], nil
	}
	return nil, nil
}

// pluginSkillDir is the folder of plugin p's skill inside its repository
// (its source's folder included), as p's layout lists it at the commit
// last fetched (a folder source: as it is on disk); ok is false when the
// layout lists no such skill or cannot be read.
func pluginSkillDir(tx *store.Tx, p *Plugin, skill string) (string, bool) {
	if p.Source.Kind == SourceGit {
		tip, ok := tx.Ref(store.SourceRef(p.ID))
		if !ok {
			return "", false
		}
		_, dir, err := upstreamSkillAt(tx, p, tip, skill)
		if err != nil {
			return "", false
		}
		return path.Join(p.Source.Path, dir), true
	}
	root, err := os.OpenRoot(p.Source.URL)
	if err != nil {
		return "", false
	}
	defer root.Close()
	up, err := newPluginUpstream(p, folderscan.NewRootFS(root))
	if err != nil {
		return "", false
	}
	for _, d := range up.Layout.Skills {
		if d.Name == skill {
			return d.Path, true
		}
	}
	return "", false
}

// pluginForSkill is the id of the plugin skill joins: a plugin of the
// store (findAdoptPlugin), else one added for it from the source, with an
// empty selection (the link selects the skill). added reports the latter.
func pluginForSkill(ctx context.Context, tx *store.Tx, pre *Prefetched, sk InstalledSkill, skill string) (id string, added bool, err error) {
	if p, err := findAdoptPlugin(tx, sk, skill); err != nil || p != nil {
		if p == nil {
			return "", false, err
		}
		return p.ID, false, nil
	}
	src := sk.Upstream
	layout, fetched, fsys, done, err := ReadSource(ctx, tx, pre, src)
	if err != nil {
		return "", false, err
	}
	market := pluginfmt.HasMarketplace(fsys)
	done()
	p := &Plugin{Source: src, Skills: []string{}, Select: []string{"!*"}}
	var name string
	switch {
	case len(layout.Plugins) == 0 && len(layout.Remote) == 1 && src.Selector != "":
		// A marketplace entry that lives in another repository: the
		// plugin's source is that repository.
		// The entry is its marketplace author's word: no local source.
		entry, err := EntrySource(layout.Remote[0], nil)
		if err == nil {
			err = CheckSource(tx.Store(), entry, MarketplaceName(src))
		}
		if err != nil {
			return "", false, fmt.Errorf("source %s: plugin %s: %w", src, src.Selector, err)
		}
		if found, err := findAdoptPlugin(tx, InstalledSkill{Upstream: entry}, skill); err != nil || found != nil {
			if found == nil {
				return "", false, err
			}
			return found.ID, false, nil
		}
		if fetched, err = Fetch(ctx, tx, pre, entry, store.ZeroHash); err != nil {
			return "", false, fmt.Errorf("source %s: plugin %s: %w", src, src.Selector, err)
		}
		name = layout.Remote[0].Name
		p.Source, p.Marketplace, p.EntrySkills = entry, MarketplaceName(src), layout.Remote[0].Skills
	default:
		pl, err := pluginHolding(src, layout, skill, sk.adoptPath())
		if err != nil {
			return "", false, err
		}
		name = pl.Name
		if market {
			p.Source.Selector, p.Marketplace = pl.Name, MarketplaceName(src)
		}
	}
	if p.ID, err = adoptedPluginID(tx, name, p, layout, src); err != nil {
		return "", false, err
	}
	if p.Source.Kind == SourceGit {
		tx.SetRef(store.SourceRef(p.ID), fetched.Commit)
	}
	if err := Put(tx, p); err != nil {
		return "", false, err
	}
	tx.NoteState(fmt.Sprintf("plugin %s: added from %s to adopt its installed skills", p.ID, p.Source), store.Trailer{Key: store.TrailerPlugin, Value: p.ID})
	return p.ID, true, nil
}

// pluginHolding is the plugin of layout whose skills hold the folder dir
// (relative to the repository's top), else the one plugin with a skill
// named skill. A source of one plugin is that plugin.
func pluginHolding(src Source, layout *pluginfmt.Layout, skill, dir string) (*pluginfmt.PluginLayout, error) {
	if len(layout.Plugins) == 1 && len(layout.Remote) == 0 {
		return &layout.Plugins[0], nil
	}
	var byName []*pluginfmt.PluginLayout
	for i, pl := range layout.Plugins {
		for _, d := range pl.Skills {
			if dir != "" && path.Join(src.Path, d.Path) == dir {
				return &layout.Plugins[i], nil
			}
			if d.Name == skill {
				byName = append(byName, &layout.Plugins[i])
			}
		}
	}
	if len(byName) == 1 { // the folder unknown, or moved upstream since
		return byName[0], nil
	}
	what := "a skill " + skill
	if dir != "" {
		what = "the folder " + dir
	}
	return nil, fmt.Errorf("source %s holds %d plugins (%s) and none lists %s: add the one to link with 'skillstore plugin add %s#PLUGIN', then run adopt again",
		src, len(layout.Plugins)+len(layout.Remote), firstNames(layout.PluginNames(), 4), what, src.URL)
}

// firstNames lists names for a message, the first few of a long list and
// how many more: a marketplace of a hundred plugins is not one line of
// them ('skillstore plugin add SOURCE --dry-run' lists them all).
func firstNames(names []string, n int) string {
	if len(names) <= n+1 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// adoptedPluginID is the id of a plugin adopt adds: its name (or the one
// derived from the source), qualified as plugin add does when a plugin of
// another source holds it (see plugin_ids.go).
func adoptedPluginID(tx *store.Tx, name string, p *Plugin, layout *pluginfmt.Layout, src Source) (string, error) {
	id := ChooseID("", name, p.Source)
	if err := skillfs.CheckName(id); err != nil {
		return "", fmt.Errorf("plugin id %q: %w: add the plugin with 'skillstore plugin add %s --id NEW', then run adopt again", id, err, src)
	}
	if _, err := Get(tx.Reader, id); err != nil {
		return id, nil
	}
	qualifier := derivedPluginID(src)
	if p.Marketplace != "" {
		qualifier = MarketplaceQualifier(layout.Name, src)
	}
	if qualifier == id {
		qualifier = "adopted"
	}
	q, err := QualifiedID(tx, id, qualifier, nil)
	if err != nil {
		return "", err
	}
	if p.Marketplace != "" {
		p.Entry = name
	}
	return q, nil
}
