package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// PluginRename is a plugin that took the new name its marketplace's
// "renames" gave it, keeping its history.
type PluginRename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// PluginMove is a plugin whose source its marketplace changed (a new pin,
// URL or folder): the next sync fetches the new one.
type PluginMove struct {
	Plugin string `json:"plugin"`
	From   string `json:"from"`
	To     string `json:"to"`
}

// noSkillsYet notes a plugin added on request although it has no skills.
const noSkillsYet = "it holds no skills yet: sync mirrors the ones it gains"

// marketEntry is one plugin of a marketplace about to be added: in the
// marketplace's own source (local) or in another repository (remote).
type marketEntry struct {
	plugin *Plugin
	name   string // the entry's name
	line   int    // its line in marketplace.json, 0 when unknown
	remote bool
	// takenBy is the origin of the plugin holding the entry's name, when
	// the entry got a qualified id instead (see plugin_ids.go).
	takenBy string
}

// addMarketplace adds the plugins of a marketplace one by one: each is
// fetched (entries in other repositories) and mirrored on its own, and one
// that fails is reported with nothing written for it while the others are
// added. Plugins without skills are skipped with a note, unless SOURCE#name
// picked one. Plugins it added before are found by their Marketplace: a
// "renames" entry renames them, a changed source is followed.
func (tx *Tx) addMarketplace(ctx context.Context, src Source, layout *pluginfmt.Layout, fetched gitfetch.Fetched, opts AddPluginOptions) (*SyncReport, error) {
	mkt := marketplaceName(src)
	if n := len(layout.Plugins) + len(layout.Remote); opts.ID != "" && n > 1 {
		return nil, idForOneError(src, opts.ID, layout.PluginNames())
	}
	rep := &SyncReport{Plugins: []PluginReport{}, Skipped: slices.Clone(layout.Skipped)}
	for _, f := range layout.Failed {
		rep.Plugins = append(rep.Plugins, failedReport(f.Plugin, mkt, f))
	}
	var entries []marketEntry
	for _, pl := range layout.Plugins {
		s := src
		s.Selector = pl.Name
		p := &Plugin{ID: pluginID(opts.ID, pl.Name, src), Source: s, Review: opts.Review, Marketplace: mkt, Skills: []string{}}
		entries = append(entries, marketEntry{plugin: p, name: pl.Name, line: layout.Lines[pl.Name]})
	}
	for _, r := range layout.Remote {
		s, err := remoteEntrySource(r, opts.AllowLocal)
		if err == nil {
			err = tx.s.CheckSource(s, mkt)
		}
		if err != nil {
			rep.Plugins = append(rep.Plugins, failedReport(r.Name, mkt, &pluginfmt.EntryError{Plugin: r.Name, Line: r.Line, Err: err}))
			continue
		}
		p := &Plugin{ID: pluginID(opts.ID, r.Name, s), Source: s, Review: opts.Review, Marketplace: mkt, EntrySkills: r.Skills, Skills: []string{}}
		entries = append(entries, marketEntry{plugin: p, name: r.Name, line: r.Line, remote: true})
	}
	renamed, err := tx.followRenames(layout.Renames, src, entries, rep)
	if err != nil {
		return nil, err
	}
	ids := newEntryIDs(marketplaceQualifier(layout.Name, src), entries)
	sel, err := newSkillSelection(opts.Skills)
	if err != nil {
		return nil, err
	}
	// Every entry is read first, so that a --skill pattern matching no
	// skill of any plugin fails the add before anything is written.
	fetches := entryFetches{}
	var ready []readyEntry
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if renamed[e.plugin.ID] {
			continue
		}
		if opts.ID == "" {
			if err := tx.resolveEntryID(&e, ids); err != nil {
				rep.Plugins = append(rep.Plugins, failedReport(e.name, mkt, &pluginfmt.EntryError{Plugin: e.name, Line: e.line, Err: err}))
				continue
			}
		}
		if up := tx.readEntry(ctx, e, fetched, fetches, src.Selector != "", sel, rep); up != nil {
			ready = append(ready, readyEntry{e, up})
		}
	}
	if sel != nil {
		kept := ready[:0]
		for _, r := range ready {
			taken, mine := sel.pick(slices.Sorted(maps.Keys(r.up.skills)))
			maps.DeleteFunc(r.up.skills, func(name string, _ *upstreamSkill) bool { return !taken[name] })
			if len(r.up.skills) == 0 {
				rep.Skipped = append(rep.Skipped, pluginfmt.SkippedPlugin{Name: r.plugin.ID, Reason: notSelectedReason})
				continue
			}
			r.plugin.Select = mine
			kept = append(kept, r)
		}
		if err := sel.check(src, len(kept)); err != nil {
			return nil, err
		}
		ready = kept
	}
	cc := newCommitCache(tx.Reader)
	sopts, err := opts.syncOptions(tx)
	if err != nil {
		return nil, err
	}
	for _, r := range ready {
		tx.recordEntry(r, cc, sopts, rep)
	}
	sort.SliceStable(rep.Plugins, func(i, j int) bool { return rep.Plugins[i].Plugin < rep.Plugins[j].Plugin })
	return rep, nil
}

// readyEntry is a marketplace plugin read and ready to be recorded.
type readyEntry struct {
	marketEntry
	up *upstream
}

// readEntry reads one plugin of a marketplace (fetching its repository
// when it lives in another one). It returns nil when there is nothing to
// record: the plugin is already there (or moved), skipped for having no
// skills, or failed; rep says which. The skills of a plugin already there
// are added to sel's available ones.
func (tx *Tx) readEntry(ctx context.Context, e marketEntry, fetched gitfetch.Fetched, fetches entryFetches, picked bool, sel *skillSelection, rep *SyncReport) *upstream {
	p := e.plugin
	fail := func(err error) {
		rep.Plugins = append(rep.Plugins, failedReport(p.ID, p.Source.String(), &pluginfmt.EntryError{Plugin: e.name, Line: e.line, Err: err}))
	}
	if err := skillfs.CheckName(p.ID); err != nil {
		fail(fmt.Errorf("plugin id %q: %w", p.ID, err))
		return nil
	}
	if cur, err := tx.Plugin(p.ID); err == nil {
		switch {
		case cur.Source == p.Source:
			rep.AlreadyAdded = append(rep.AlreadyAdded, p.ID)
			if sel == nil {
				break
			}
			// Its skills count among those --skill may name.
			if up, err := tx.entryUpstream(ctx, e, fetched, fetches); err == nil {
				sel.available = append(sel.available, slices.Collect(maps.Keys(up.skills))...)
			}
		case cur.Marketplace != "" && cur.Marketplace == p.Marketplace && entryName(cur) == e.name:
			if err := tx.movePlugin(cur, p, rep); err != nil {
				fail(err)
			}
		default:
			fail(fmt.Errorf("id %q: %w: %s; this marketplace's %q is from %s (add it alone with SOURCE#%s and --id NEW)",
				p.ID, ErrPluginExists, pluginOrigin(cur), e.name, pluginOrigin(p), e.name))
		}
		return nil
	} else if !errors.Is(err, ErrUnknownPlugin) {
		fail(err)
		return nil
	}
	up, err := tx.entryUpstream(ctx, e, fetched, fetches)
	if !picked && (errors.Is(err, pluginfmt.ErrNoSkills) || (err == nil && len(up.skills) == 0)) {
		rep.Skipped = append(rep.Skipped, pluginfmt.SkippedPlugin{Name: p.ID, Reason: pluginfmt.NoSkillsReason})
		return nil
	}
	if err != nil {
		fail(err)
		return nil
	}
	return up
}

// recordEntry records one marketplace plugin read by readEntry and mirrors
// its skills (its parts left out are in its report, see intake.go); one
// that fails leaves nothing written and is reported in rep.
func (tx *Tx) recordEntry(r readyEntry, cc *commitCache, opts SyncOptions, rep *SyncReport) {
	p := r.plugin
	restore := tx.savepoint()
	pr := PluginReport{Plugin: p.ID, Source: p.Source.String(), Skills: []SkillReport{}}
	if r.takenBy != "" {
		pr.Entry, pr.IDTakenBy = r.name, r.takenBy
	}
	if err := tx.recordPlugin(p, r.up, cc, opts, &pr); err != nil {
		restore() // nothing of this plugin is written
		fr := failedReport(p.ID, p.Source.String(), &pluginfmt.EntryError{Plugin: r.name, Line: r.line, Err: err})
		fr.Skills, fr.Parts = pr.Skills, pr.Parts // --strict: what would have been left out
		if !errors.Is(err, ErrStrict) {
			fr.Skills, fr.Parts = []SkillReport{}, nil
		}
		rep.Plugins = append(rep.Plugins, fr)
		return
	}
	if len(r.up.skills) == 0 {
		pr.Note = noSkillsYet
	}
	rep.Plugins = append(rep.Plugins, pr)
}

// entryFetches keeps the fetches of one marketplace add by repository and
// pin: the git-subdir entries of one monorepo fetch it once.
type entryFetches map[[2]string]entryFetch

type entryFetch struct {
	fetched gitfetch.Fetched
	err     error
}

// entryUpstream reads what a marketplace plugin holds: from the
// marketplace's own fetch or folder, or by fetching its repository.
func (tx *Tx) entryUpstream(ctx context.Context, e marketEntry, fetched gitfetch.Fetched, fetches entryFetches) (*upstream, error) {
	p := e.plugin
	switch {
	case e.remote:
		key := [2]string{p.Source.URL, p.Source.Ref}
		got, ok := fetches[key]
		if !ok {
			got.fetched, got.err = tx.fetchEntry(ctx, p.Source)
			fetches[key] = got
		}
		if got.err != nil {
			return nil, got.err
		}
		return tx.upstreamAt(p, got.fetched)
	case p.Source.Kind == SourceGit:
		return tx.upstreamAt(p, fetched)
	}
	return readFolderUpstream(p.Source, nil)
}

// fetchEntry fetches the repository of a marketplace plugin. It is the one
// place adding a marketplace fetches, besides the marketplace itself.
func (tx *Tx) fetchEntry(ctx context.Context, src Source) (gitfetch.Fetched, error) {
	return tx.fetch(ctx, src, ZeroHash)
}

// recordPlugin records a new plugin and mirrors its skills; an error means
// the caller must drop what it queued.
func (tx *Tx) recordPlugin(p *Plugin, up *upstream, cc *commitCache, opts SyncOptions, pr *PluginReport) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(up.skills)) {
		if err := tx.claimSkill(p, name); err != nil {
			errs = append(errs, err)
			continue
		}
		// Owned from here, so the sync below does not claim it twice
		// (a skill linked back is no longer managed after the first).
		p.Skills = append(p.Skills, name)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if p.Source.Kind == SourceGit {
		tx.SetRef(SourceRef(p.ID), up.fetched.Commit)
	}
	if err := tx.putPlugin(p); err != nil {
		return err
	}
	tx.NoteState(fmt.Sprintf("plugin %s: added from %s (marketplace %s)", p.ID, p.Source, p.Marketplace), Trailer{Key: TrailerPlugin, Value: p.ID})
	err := tx.syncPlugin(p, up, opts, cc, pr)
	if err == nil || errors.Is(err, ErrStrict) {
		return err
	}
	var msgs []string
	for _, s := range pr.Skills {
		if s.Error != "" {
			msgs = append(msgs, s.Skill+": "+s.Error)
		}
	}
	if len(msgs) == 0 {
		return err
	}
	return errors.New(strings.Join(msgs, "; "))
}

// failedReport is the report of a plugin that could not be added.
func failedReport(plugin, source string, err error) PluginReport {
	return PluginReport{Plugin: plugin, Source: source, Skills: []SkillReport{}, Error: err.Error(), Err: err}
}

// savepoint notes what the transaction queued so far; the function it
// returns drops every ref update and state change queued since. Objects
// queued since stay, unreferenced: gc prunes them.
func (tx *Tx) savepoint() (restore func()) {
	refs := maps.Clone(tx.newRefs)
	order := len(tx.refOrder)
	puts := maps.Clone(tx.state.puts)
	subjects, trailers := len(tx.state.subjects), len(tx.state.trailers)
	return func() {
		tx.newRefs = refs
		if tx.newRefs == nil {
			tx.newRefs = map[string]Hash{}
		}
		tx.refOrder = tx.refOrder[:order]
		tx.state.puts = puts
		tx.state.subjects = tx.state.subjects[:subjects]
		tx.state.trailers = tx.state.trailers[:trailers]
	}
}

// entryName is the marketplace entry a plugin added from a marketplace came
// from: the name recorded when its id is another, else its selector
// (entries in the marketplace's source), else its id.
func entryName(p *Plugin) string {
	if p.Entry != "" {
		return p.Entry
	}
	if p.Source.Selector != "" {
		return p.Source.Selector
	}
	return p.ID
}

// pluginOrigin says where a plugin comes from, for errors naming two.
func pluginOrigin(p *Plugin) string {
	if p.Marketplace != "" {
		return fmt.Sprintf("%s of marketplace %s", p.Source, p.Marketplace)
	}
	return p.Source.String()
}
