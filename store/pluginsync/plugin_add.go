package pluginsync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/safety"
)

// AddOptions tune [Add].
type AddOptions struct {
	// ID names the plugin in the store; the default is the manifest's
	// plugin name, else the source's base name. Only for a single plugin.
	ID string
	// Review makes sync turn this plugin's fast-forwards into candidates.
	Review bool
	// Skills picks the skills to mirror: names or path.Match globs, "!"
	// to leave out (see [plugins.Plugin.Selects]); empty means all. Sync keeps to
	// the selection.
	Skills []string
	// AllowLocal names the sources on this machine (paths or file://
	// URLs, each covering the folders below it) that a marketplace's
	// entries may use; every other local entry is refused (see
	// CheckNamedSource). Only the user names them, on the command line.
	AllowLocal []string
	// Strict makes each plugin all or nothing: when a part of it would be
	// left out, nothing of it is written (see SyncOptions.Strict).
	Strict bool
	// SkillsOnly leaves out a marketplace's plugins that hold no skills
	// (commands, agents, hooks or servers only), which are otherwise
	// added with their parts, as the agents install them.
	SkillsOnly bool
	// AllowRisk is the highest risk level taken in (zero: the default);
	// see SyncOptions.AllowRisk.
	AllowRisk safety.RiskLevel
	// RiskCap: see Options.RiskCap.
	RiskCap safety.RiskLevel
}

// syncOptions are the options of the first sync of a plugin being added.
func (o AddOptions) syncOptions(tx *store.Tx) (Options, error) {
	return withAccepted(tx, Options{Strict: o.Strict, AllowRisk: o.AllowRisk, RiskCap: o.RiskCap})
}

// Add records the plugins a source provides (one, or every plugin of
// a marketplace unless the source names one with "#name") and mirrors their
// skills: each skill's upstream tree becomes a snapshot on
// refs/upstream/<plugin>/<skill> that is also the skill's first version.
// A part the intake refuses (a skill that fails validation or is above
// the allowed risk, a file the store never holds: see intake.go) is left
// out, named in the report, and the rest goes in; with opts.Strict the
// plugin is all or nothing. An ownership conflict or a bad manifest
// writes nothing for the plugin. A marketplace is added plugin by plugin
// (see addMarketplace): the report lists the ones that failed
// ([Report.Failed]), with nothing written for them, beside the ones
// added.
//
// A git source, and the repositories a marketplace's entries live in, are
// fetched before the write lock is taken, concurrently.
//
// The plugins added, or found added already, are the store's: a plugin
// that a project's lock had added for that project's targets only
// (plugins.ProjectOnly) goes to every target from now on.
func Add(ctx context.Context, s *store.Store, src plugins.Source, opts AddOptions) (*Report, error) {
	pre := plugins.Prefetch(ctx, s, []plugins.FetchRequest{{Source: src}}, nil)
	defer pre.Close()
	plugins.PrefetchEntries(ctx, s, src, pre, opts.AllowLocal)
	rep, err := AddFetched(ctx, s, pre, src, opts)
	if err != nil {
		return rep, err
	}
	if err := addDependencies(ctx, s, pre, src, opts, rep); err != nil {
		return rep, err
	}
	ids := slices.Clone(rep.AlreadyAdded)
	for _, p := range rep.Plugins {
		if p.Error == "" {
			ids = append(ids, p.Plugin)
		}
	}
	return rep, plugins.DropProjectOnly(ctx, s, ids...)
}

// AddFetched is [Add] of a source fetched already (pre holds it, and its
// marketplace's entries: plugins.Prefetch, plugins.PrefetchEntries), for a
// caller that fetches every source it needs before it writes anything (a
// project's lock, see package projectlock). It leaves plugins.ProjectOnly
// as it is.
func AddFetched(ctx context.Context, s *store.Store, pre *plugins.Prefetched, src plugins.Source, opts AddOptions) (*Report, error) {
	var rep *Report
	err := s.Update(ctx, func(tx *store.Tx) error {
		var err error
		rep, err = addPlugins(ctx, tx, pre, src, opts)
		return err
	})
	return rep, err
}

// AddFetchedIn is [AddFetched] inside tx, for a caller that adds several
// plugins in one transaction (an install of a lock).
func AddFetchedIn(ctx context.Context, tx *store.Tx, pre *plugins.Prefetched, src plugins.Source, opts AddOptions) (*Report, error) {
	return addPlugins(ctx, tx, pre, src, opts)
}

// addPlugins is [Add] inside a transaction, reading the
// sources pre holds from it.
func addPlugins(ctx context.Context, tx *store.Tx, pre *plugins.Prefetched, src plugins.Source, opts AddOptions) (*Report, error) {
	layout, fetched, fsys, done, err := plugins.ReadSource(ctx, tx, pre, src)
	if err != nil {
		return nil, err
	}
	market := pluginfmt.HasMarketplace(fsys)
	unreached := findUnreached(tx, fsys, src, layout)
	done()
	if market {
		rep, err := addMarketplace(ctx, tx, pre, src, layout, fetched, opts)
		if err == nil {
			rep.Unreached = unreached
			err = saveHeld(tx, rep)
		}
		return rep, err
	}
	selections, err := plugins.SelectLayout(src, layout, opts.Skills)
	if err != nil {
		return nil, err
	}
	if opts.ID != "" && len(layout.Plugins) > 1 {
		return nil, plugins.IDForOneError(src, opts.ID, layout.PluginNames())
	}
	var recs []*plugins.Plugin
	var errs []error
	var already []string
	claimed := map[string]string{}
	notes := map[string]string{} // plugin id → a remark for its report
	for i, pl := range layout.Plugins {
		p := &plugins.Plugin{Source: src, Review: opts.Review, Skills: []string{}, Select: selections[i]}
		if market && src.Selector == "" {
			p.Source.Selector = pl.Name
		}
		p.ID = plugins.ChooseID(opts.ID, pl.Name, src)
		if opts.ID == "" {
			notes[p.ID] = plugins.RepairedNote(p.ID, pl.Name)
		}
		if err := skillfs.CheckName(p.ID); err != nil {
			errs = append(errs, fmt.Errorf("plugin id %q: %w (choose one with --id)", p.ID, err))
			continue
		}
		if cur, err := plugins.Get(tx.Reader, p.ID); err == nil {
			if cur.Source == p.Source && !slices.Equal(cur.Select, p.Select) {
				errs = append(errs, fmt.Errorf("plugin %q: %w with the skill selection %s: change it with 'skillstore plugin skills %s'", p.ID, plugins.ErrPluginExists, plugins.SelectionText(cur.Select), p.ID))
				continue
			}
			if cur.Source == p.Source {
				// The end state already holds: adding it again is a no-op.
				already = append(already, p.ID)
				continue
			}
			errs = append(errs, fmt.Errorf("plugin %q: %w (from %s)", p.ID, plugins.ErrPluginExists, cur.Source))
			continue
		}
		for _, sk := range pl.Skills {
			name := store.QualifiedName(p.ID, sk.Name)
			if other, dup := claimed[name]; dup {
				errs = append(errs, &plugins.OwnershipError{Skill: sk.Name, Plugin: p.ID, Owner: "plugin:" + other})
				continue
			}
			claimed[name] = p.ID
			if err := plugins.Claim(tx, p, sk.Name); err != nil {
				errs = append(errs, err)
				continue
			}
			// Owned from here, so the sync below does not claim it twice
			// (a skill linked back is no longer managed after the first).
			p.Skills = append(p.Skills, sk.Name)
		}
		recs = append(recs, p)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	rep := &Report{Plugins: []PluginReport{}, Skipped: layout.Skipped, AlreadyAdded: already, Dialects: severalDialects(layout), Unreached: unreached}
	sopts, err := opts.syncOptions(tx)
	if err != nil {
		return nil, err
	}
	for _, p := range recs {
		if src.Fetched() {
			tx.SetRef(store.SourceRef(p.ID), fetched.Commit)
		}
		if err := plugins.Put(tx, p); err != nil {
			return nil, err
		}
		tx.NoteState(fmt.Sprintf("plugin %s: added from %s", p.ID, p.Source), store.Trailer{Key: store.TrailerPlugin, Value: p.ID})
		pr := PluginReport{Plugin: p.ID, Source: p.Source.String(), Skills: []SkillReport{}, Note: notes[p.ID]}
		up, err := plugins.ReadUpstream(ctx, tx, pre, p, nil)
		if err == nil {
			err = syncPlugin(tx, p, up, sopts, newCommitCache(tx.Reader), &pr)
		}
		if err == nil {
			err = disableByDefault(tx, p, up, &pr)
		}
		if errors.Is(err, ErrStrict) {
			return nil, fmt.Errorf("plugin %s: %w", p.ID, err)
		}
		if err != nil {
			var msgs []string
			for _, s := range pr.Skills {
				if s.Error != "" {
					msgs = append(msgs, s.Error)
				}
			}
			if len(msgs) == 0 {
				msgs = []string{err.Error()}
			}
			return nil, fmt.Errorf("plugin %s: %s", p.ID, strings.Join(msgs, "; "))
		}
		rep.Plugins = append(rep.Plugins, pr)
	}
	return rep, saveHeld(tx, rep)
}

// severalDialects is the dialects a layout was read in when there are
// several (nil otherwise): the report says so, and --dialect picks one.
func severalDialects(l *pluginfmt.Layout) []pluginfmt.Dialect {
	if len(l.Dialects) < 2 {
		return nil
	}
	return l.Dialects
}

// findUnreached lists the skill folders of the source that its layout
// does not reach, unless the source names one plugin (SOURCE#plugin): then
// the others are not asked for. A tree that cannot be listed gives none
// (the note is for people; the add reads what it takes on its own).
func findUnreached(tx *store.Tx, fsys pluginfmt.PluginFS, src plugins.Source, layout *pluginfmt.Layout) *Unreached {
	if src.Selector != "" {
		return nil
	}
	dirs, err := pluginfmt.Unreached(fsys, layout)
	if err != nil {
		tx.Store().Logger().Debug("unreached skill folders not listed", "source", src.String(), "err", err)
		return nil
	}
	if len(dirs) == 0 {
		return nil
	}
	return &Unreached{Skills: dirs, Folders: pluginfmt.UnreachedFolders(fsys, dirs)}
}

// disableByDefault disables a plugin just added whose manifest (or
// marketplace entry) says "defaultEnabled": false, as Claude Code
// installs it: its skills are versioned and not exported until 'plugin
// enable'.
func disableByDefault(tx *store.Tx, p *plugins.Plugin, up *plugins.Upstream, pr *PluginReport) error {
	if !up.Layout.DefaultDisabled {
		return nil
	}
	pr.DisabledByDefault = true
	return plugins.SetDisabledIn(tx, p, true, "defaultEnabled: false in its manifest: 'skillstore plugin enable "+p.ID+"' turns it on")
}
