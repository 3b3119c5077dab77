package pluginsync

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
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
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

// NoSkillsNote notes a marketplace plugin added with its parts only (the
// CLI sums these up in one line).
const NoSkillsNote = "it holds no skills: its other parts were added (--skills-only leaves such plugins out)"

// noSkillsYet notes a plugin added on request although it has no skills.
const noSkillsYet = "it holds no skills yet: sync mirrors the ones it gains"

// marketEntry is one plugin of a marketplace about to be added: in the
// marketplace's own source (local) or in another repository (remote).
type marketEntry struct {
	plugin *plugins.Plugin
	name   string // the entry's name
	file   string // the marketplace file that lists it
	line   int    // its line there, 0 when unknown
	remote bool
	// layout is a local entry's plugin as the marketplace's read found
	// it: it is not read again.
	layout *pluginfmt.PluginLayout
	// takenBy is the origin of the plugin holding the entry's name, when
	// the entry got a qualified id instead (see plugin_ids.go).
	takenBy string
	// remoteEntry is a remote entry as its marketplace lists it: what
	// it says of the plugin beside the plugin's own manifest.
	remoteEntry pluginfmt.RemotePlugin
}

// addMarketplace adds the plugins of a marketplace one by one: each is
// fetched (entries in other repositories) and mirrored on its own, and one
// that fails is reported with nothing written for it while the others are
// added. Plugins without skills are skipped with a note, unless SOURCE#name
// picked one. Plugins it added before are found by their Marketplace: a
// "renames" entry renames them, a changed source is followed.
func addMarketplace(ctx context.Context, tx *store.Tx, pre *plugins.Prefetched, src plugins.Source, layout *pluginfmt.Layout, fetched gitfetch.Fetched, opts AddOptions) (*Report, error) {
	mkt := plugins.MarketplaceName(src)
	if n := len(layout.Plugins) + len(layout.Remote); opts.ID != "" && n > 1 {
		return nil, plugins.IDForOneError(src, opts.ID, layout.PluginNames())
	}
	rep := &Report{Plugins: []PluginReport{}, Skipped: slices.Clone(layout.Skipped), Dialects: severalDialects(layout)}
	for _, f := range layout.Failed {
		rep.Plugins = append(rep.Plugins, failedReport(f.Plugin, mkt, f))
	}
	var entries []marketEntry
	reads := &entryReads{fetches: map[plugins.Source]entryFetch{}, roots: []string{}}
	for i, pl := range layout.Plugins {
		s := src
		s.Selector = pl.Name
		p := &plugins.Plugin{ID: plugins.ChooseID(opts.ID, pl.Name, src), Source: s, Review: opts.Review, Marketplace: mkt, Skills: []string{}}
		entries = append(entries, marketEntry{plugin: p, name: pl.Name, file: layout.Files[pl.Name], line: layout.Lines[pl.Name], layout: &layout.Plugins[i]})
		reads.roots = append(reads.roots, pl.Root)
	}
	for _, r := range layout.Remote {
		s, err := plugins.EntrySource(r, opts.AllowLocal)
		if err == nil {
			err = plugins.CheckSource(tx.Store(), s, mkt)
		}
		if err != nil {
			rep.Plugins = append(rep.Plugins, failedReport(r.Name, mkt, &pluginfmt.EntryError{Plugin: r.Name, File: r.File, Line: r.Line, Err: err}))
			continue
		}
		p := &plugins.Plugin{ID: plugins.ChooseID(opts.ID, r.Name, s), Source: s, Review: opts.Review, Marketplace: mkt, EntrySkills: r.Skills, Skills: []string{}}
		entries = append(entries, marketEntry{plugin: p, name: r.Name, file: r.File, line: r.Line, remote: true, remoteEntry: r})
	}
	renamed, err := followRenames(tx, layout.Renames, src, entries, rep)
	if err != nil {
		return nil, err
	}
	ids := newEntryIDs(plugins.MarketplaceQualifier(layout.Name, src), entries)
	sel, err := plugins.NewSkillSelection(opts.Skills)
	if err != nil {
		return nil, err
	}
	// Every entry is read first, so that a --skill pattern matching no
	// skill of any plugin fails the add before anything is written.
	reads.fetched = fetched
	if src.Fetched() {
		if reads.fsys, err = fetched.FSAt(src.Path); err != nil {
			return nil, fmt.Errorf("plugin source %s: %w", src, err)
		}
	}
	recs, err := plugins.List(tx.Reader)
	if err != nil {
		return nil, err
	}
	var ready []readyEntry
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if renamed[e.plugin.ID] {
			continue
		}
		if opts.ID == "" {
			if err := resolveEntryID(tx, &e, ids, recs); err != nil {
				rep.Plugins = append(rep.Plugins, failedReport(e.name, mkt, &pluginfmt.EntryError{Plugin: e.name, File: e.file, Line: e.line, Err: err}))
				continue
			}
		}
		if up := readEntry(ctx, tx, pre, e, reads, entryWant{picked: src.Selector != "", skillsOnly: opts.SkillsOnly}, sel, rep); up != nil {
			ready = append(ready, readyEntry{e, up, layout.Name})
		}
	}
	if sel != nil {
		kept := ready[:0]
		for _, r := range ready {
			taken, mine := sel.Pick(slices.Sorted(maps.Keys(r.up.Skills)))
			maps.DeleteFunc(r.up.Skills, func(name string, _ *plugins.UpstreamSkill) bool { return !taken[name] })
			if len(r.up.Skills) == 0 {
				rep.Skipped = append(rep.Skipped, pluginfmt.SkippedPlugin{Name: r.plugin.ID, Reason: plugins.NotSelectedReason})
				continue
			}
			r.plugin.Select = mine
			kept = append(kept, r)
		}
		if err := sel.Check(src, len(kept)); err != nil {
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
		recordEntry(tx, r, cc, sopts, rep)
	}
	sort.SliceStable(rep.Plugins, func(i, j int) bool { return rep.Plugins[i].Plugin < rep.Plugins[j].Plugin })
	return rep, nil
}

// readyEntry is a marketplace plugin read and ready to be recorded.
type readyEntry struct {
	marketEntry
	up  *plugins.Upstream
	mkt string // the marketplace's name in its file
}

// readEntry reads one plugin of a marketplace (fetching its repository
// when it lives in another one). It returns nil when there is nothing to
// record: the plugin is already there (or moved), skipped for having no
// skills, or failed; rep says which. The skills of a plugin already there
// are added to sel's available ones.
// entryWant is what the add asks of a marketplace entry: picked when
// SOURCE#name chose it (taken even with nothing in it yet), skillsOnly to
// leave it out when it holds no skills.
type entryWant struct{ picked, skillsOnly bool }

func readEntry(ctx context.Context, tx *store.Tx, pre *plugins.Prefetched, e marketEntry, reads *entryReads, want entryWant, sel *plugins.SkillSelection, rep *Report) *plugins.Upstream {
	picked := want.picked
	p := e.plugin
	fail := func(err error) {
		rep.Plugins = append(rep.Plugins, failedReport(p.ID, p.Source.String(), &pluginfmt.EntryError{Plugin: e.name, File: e.file, Line: e.line, Err: err}))
	}
	if err := skillfs.CheckName(p.ID); err != nil {
		fail(fmt.Errorf("plugin id %q: %w", p.ID, err))
		return nil
	}
	if cur, err := plugins.Get(tx.Reader, p.ID); err == nil {
		switch {
		case cur.Source == p.Source:
			rep.AlreadyAdded = append(rep.AlreadyAdded, p.ID)
			if sel == nil {
				break
			}
			// Its skills count among those --skill may name.
			if up, err := entryUpstream(ctx, tx, pre, e, reads); err == nil {
				sel.AddAvailable(slices.Collect(maps.Keys(up.Skills))...)
			}
		case cur.Marketplace != "" && cur.Marketplace == p.Marketplace && plugins.EntryName(cur) == e.name:
			if err := movePlugin(tx, cur, p, rep); err != nil {
				fail(err)
			}
		default:
			fail(fmt.Errorf("id %q: %w: %s; this marketplace's %q is from %s (add it alone with SOURCE#%s and --id NEW)",
				p.ID, plugins.ErrPluginExists, plugins.Origin(cur), e.name, plugins.Origin(p), e.name))
		}
		return nil
	} else if !errors.Is(err, store.ErrUnknownPlugin) {
		fail(err)
		return nil
	}
	up, err := entryUpstream(ctx, tx, pre, e, reads)
	if !picked && errors.Is(err, pluginfmt.ErrNoSkills) {
		rep.Skipped = append(rep.Skipped, pluginfmt.SkippedPlugin{Name: p.ID, Reason: pluginfmt.NoSkillsReason})
		return nil
	}
	if !picked && err == nil && !hasSkills(up) {
		// Commands, agents, hooks or servers only: what the agent
		// installs, so taken with its parts, unless asked not to.
		if want.skillsOnly {
			rep.Skipped = append(rep.Skipped, pluginfmt.SkippedPlugin{Name: p.ID, Reason: pluginfmt.NoSkillsReason})
			return nil
		}
		if parts, perr := plugins.ReadParts(tx, p, up, false); perr == nil && parts == nil {
			rep.Skipped = append(rep.Skipped, pluginfmt.SkippedPlugin{Name: p.ID, Reason: pluginfmt.EmptyReason})
			return nil
		}
	}
	if err != nil {
		fail(err)
		return nil
	}
	return up
}

// hasSkills reports whether up holds a skill besides the plugin's parts.
func hasSkills(up *plugins.Upstream) bool {
	for _, sk := range up.Skills {
		if !sk.Parts {
			return true
		}
	}
	return false
}

// recordEntry records one marketplace plugin read by readEntry and mirrors
// its skills (its parts left out are in its report, see intake.go); one
// that fails leaves nothing written and is reported in rep.
func recordEntry(tx *store.Tx, r readyEntry, cc *commitCache, opts Options, rep *Report) {
	p := r.plugin
	restore := tx.Savepoint()
	pr := PluginReport{Plugin: p.ID, Source: p.Source.String(), Skills: []SkillReport{}, mkt: r.mkt}
	if r.takenBy != "" {
		pr.Entry, pr.IDTakenBy = r.name, r.takenBy
	} else {
		pr.Note = plugins.RepairedNote(p.ID, r.name)
	}
	if err := recordPlugin(tx, p, r.up, cc, opts, &pr); err != nil {
		restore() // nothing of this plugin is written
		fr := failedReport(p.ID, p.Source.String(), &pluginfmt.EntryError{Plugin: r.name, File: r.file, Line: r.line, Err: err})
		fr.Skills, fr.Parts = pr.Skills, pr.Parts // --strict: what would have been left out
		if !errors.Is(err, ErrStrict) {
			fr.Skills, fr.Parts = []SkillReport{}, nil
		}
		rep.Plugins = append(rep.Plugins, fr)
		return
	}
	if !hasSkills(r.up) && pr.Note == "" {
		pr.Note = noSkillsYet
		if pr.Parts != nil {
			pr.Note = NoSkillsNote
		}
	}
	rep.Plugins = append(rep.Plugins, pr)
}

// entryReads is what the entries of one marketplace add share: the
// marketplace's fetched commit and its tree (read once for all its local
// entries), the folders of its local plugins, and the fetches of other
// repositories by repository and pin (the git-subdir entries of one
// monorepo fetch it once).
type entryReads struct {
	fetched gitfetch.Fetched
	fsys    *gitfetch.TreeFS // git marketplaces
	roots   []string
	fetches map[plugins.Source]entryFetch // by source, its folder and selector left out
}

type entryFetch struct {
	fetched gitfetch.Fetched
	err     error
}

// entryUpstream reads what a marketplace plugin holds: from the
// marketplace's own fetch or folder, or by fetching its repository.
func entryUpstream(ctx context.Context, tx *store.Tx, pre *plugins.Prefetched, e marketEntry, reads *entryReads) (*plugins.Upstream, error) {
	p := e.plugin
	var up *plugins.Upstream
	var err error
	switch {
	case e.remote:
		key := p.Source
		key.Path, key.Selector = "", ""
		got, ok := reads.fetches[key]
		if !ok {
			got.fetched, got.err = plugins.Fetch(ctx, tx, pre, p.Source, store.ZeroHash)
			reads.fetches[key] = got
		}
		if got.err != nil {
			return nil, got.err
		}
		up, err := plugins.UpstreamAt(tx, p, got.fetched)
		if err == nil {
			up.Layout.Entry(e.remoteEntry.DefaultEnabled, e.remoteEntry.Dependencies)
		}
		return up, err
	case p.Source.Fetched():
		up, err = plugins.UpstreamOf(tx, p, reads.fetched, reads.fsys, *e.layout)
	default:
		up, err = plugins.ReadFolderOf(p.Source, *e.layout)
	}
	if err != nil {
		return nil, err
	}
	up.Roots = reads.roots
	return up, nil
}

// recordPlugin records a new plugin and mirrors its skills; an error means
// the caller must drop what it queued.
func recordPlugin(tx *store.Tx, p *plugins.Plugin, up *plugins.Upstream, cc *commitCache, opts Options, pr *PluginReport) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(up.Skills)) {
		if err := plugins.Claim(tx, p, name); err != nil {
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
	if p.Source.Fetched() {
		tx.SetRef(store.SourceRef(p.ID), up.Fetched.Commit)
	}
	if err := plugins.Put(tx, p); err != nil {
		return err
	}
	tx.NoteState(fmt.Sprintf("plugin %s: added from %s (marketplace %s)", p.ID, p.Source, p.Marketplace), store.Trailer{Key: store.TrailerPlugin, Value: p.ID})
	err := syncPlugin(tx, p, up, opts, cc, pr)
	if err == nil {
		return disableByDefault(tx, p, up, pr)
	}
	if errors.Is(err, ErrStrict) {
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

// followRenames applies a marketplace's "renames" (old -> new) when the
// marketplace is added again: a plugin of the store named old, added from
// this marketplace, that the marketplace now lists as new becomes new,
// keeping its history. It returns the new ids renamed, whose entries need
// nothing more. A rename whose new id is taken is reported as a failure.
func followRenames(tx *store.Tx, renames map[string]string, src plugins.Source, entries []marketEntry, rep *Report) (map[string]bool, error) {
	done := map[string]bool{}
	mkt := plugins.MarketplaceName(src)
	for _, old := range slices.Sorted(maps.Keys(renames)) {
		nu := renames[old]
		i := slices.IndexFunc(entries, func(e marketEntry) bool { return e.name == nu && e.plugin.ID == nu })
		if i < 0 {
			continue
		}
		cur, err := plugins.Get(tx.Reader, old)
		if err != nil || !addedFrom(cur, src, mkt, old) {
			continue
		}
		if other, err := plugins.Get(tx.Reader, nu); err == nil {
			err := fmt.Errorf("the marketplace renames %q to %q, and plugin %q exists already (from %s): remove one of them", old, nu, nu, other.Source)
			rep.Plugins = append(rep.Plugins, failedReport(nu, mkt, &pluginfmt.EntryError{Plugin: nu, File: entries[i].file, Line: entries[i].line, Err: err}))
			done[nu] = true
			continue
		}
		if err := plugins.Rename(tx, cur, entries[i].plugin, mkt); err != nil {
			return nil, err
		}
		rep.Renamed = append(rep.Renamed, PluginRename{From: old, To: nu})
		done[nu] = true
	}
	return done, nil
}

// addedFrom reports whether plugin p (id old) was added from the
// marketplace src: recorded so, or (records written before plugins kept
// their marketplace) picked from the same source by its old name.
func addedFrom(p *plugins.Plugin, src plugins.Source, mkt, old string) bool {
	if p.Marketplace != "" {
		return p.Marketplace == mkt
	}
	return p.Source.Kind == src.Kind && p.Source.URL == src.URL && p.Source.Path == src.Path && p.Source.Selector == old
}

// movePlugin makes plugin cur follow the source its marketplace now gives
// it (entry): the next sync fetches from there.
func movePlugin(tx *store.Tx, cur, entry *plugins.Plugin, rep *Report) error {
	next := *cur
	next.Source, next.EntrySkills = entry.Source, entry.EntrySkills
	if err := plugins.Put(tx, &next); err != nil {
		return err
	}
	tx.NoteState(fmt.Sprintf("plugin %s: source %s -> %s (marketplace %s)", cur.ID, pinnedText(cur.Source), pinnedText(entry.Source), cur.Marketplace),
		store.Trailer{Key: store.TrailerPlugin, Value: cur.ID})
	rep.Moved = append(rep.Moved, PluginMove{Plugin: cur.ID, From: pinnedText(cur.Source), To: pinnedText(entry.Source)})
	return nil
}

// pinnedText is a source with its ref, which String leaves out.
func pinnedText(s plugins.Source) string {
	if s.Ref == "" {
		return s.String()
	}
	return s.String() + " at " + s.Ref
}

// entryIDs gives the entries of one marketplace add their ids.
type entryIDs struct {
	qualifier string
	// claimed holds every id the entries of this add have or were given:
	// a qualified id never takes the name of another entry.
	claimed map[string]bool
}

func newEntryIDs(qualifier string, entries []marketEntry) *entryIDs {
	ids := &entryIDs{qualifier: qualifier, claimed: map[string]bool{}}
	for _, e := range entries {
		ids.claimed[e.plugin.ID] = true
	}
	return ids
}

// resolveEntryID gives marketplace entry e the id it was added under
// before (a qualified one is found by the entry name its record keeps),
// else its name, else, when a plugin of another source holds the name, a
// qualified id. The entry's own plugin under its name (added before, or
// moved by the marketplace) keeps it: readEntry deals with it.
func resolveEntryID(tx *store.Tx, e *marketEntry, ids *entryIDs, recs []*plugins.Plugin) error {
	p := e.plugin
	for _, cur := range recs {
		if cur.Entry == e.name && cur.Marketplace == p.Marketplace && cur.ID != p.ID {
			p.ID, p.Entry = cur.ID, e.name
			return nil
		}
	}
	cur, err := plugins.Get(tx.Reader, p.ID)
	if err != nil {
		if errors.Is(err, store.ErrUnknownPlugin) {
			return nil
		}
		return err
	}
	if cur.Source == p.Source || cur.Marketplace != "" && cur.Marketplace == p.Marketplace && plugins.EntryName(cur) == e.name {
		return nil
	}
	id, err := plugins.QualifiedID(tx, e.name, ids.qualifier, ids.claimed)
	if err != nil {
		return err
	}
	ids.claimed[id] = true
	p.ID, p.Entry = id, e.name
	e.takenBy = plugins.Origin(cur)
	return nil
}
