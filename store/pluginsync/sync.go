package pluginsync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/safety"
)

// Options tune a sync.
type Options struct {
	// Plugins limits the sync to these plugin ids; empty means every
	// enabled, unpaused plugin.
	Plugins []string
	// Review turns fast-forwards into candidates for this run.
	Review bool
	// SkillAware merges Markdown files of three-way updates with the
	// skill-aware rules (merge.Options.SkillAware). Every conflict they
	// resolve is listed in a Merge-Resolved trailer of the candidate; a
	// three-way merge is always a candidate, never published by sync.
	SkillAware bool
	// Progress, when set, is called before each plugin is synced.
	Progress func(plugin string, done, total int)
	// FetchProgress, when set, is called as each git source's fetch ends
	// (before the lock is taken; from the fetching goroutines, one call at
	// a time).
	FetchProgress func(url string, done, total int)
	// Strict makes a plugin all or nothing: when any part of it would be
	// left out (see intake.go), nothing of it is written and it fails.
	Strict bool
	// AllowRisk is the highest risk level taken in (zero: the default,
	// safety.DefaultAllowedRisk); a skill above it is left out, or held at
	// its published version. 'plugin trust PLUGIN:SKILL' accepts one tree.
	AllowRisk safety.RiskLevel
	// RiskCap is the policy's max-risk (0: none): an acceptance recorded
	// by 'plugin trust' never lets a skill in above it.
	RiskCap safety.RiskLevel

	// accepted are the acceptances 'plugin trust PLUGIN:SKILL' recorded,
	// and held the skills the last run left out whole (see heldName),
	// read once per run.
	accepted map[string]plugins.Acceptance
	held     map[string]string
	// ahead holds the three-way merges computed before the write lock
	// (candidates.WriteAhead); nil merges in place.
	ahead *merge.Ahead
}

// Report is what a sync did, per plugin and skill.
type Report struct {
	Plugins []PluginReport `json:"plugins"`
	// CandidatesWaiting counts the candidates of the synced plugins that
	// wait for review after the sync (new or older).
	CandidatesWaiting int `json:"candidates_waiting"`
	// Skipped lists the marketplace entries plugin add could not take from
	// the source (they live in another repository).
	Skipped []pluginfmt.SkippedPlugin `json:"skipped,omitempty"`
	// AlreadyAdded lists the plugins plugin add found already added from
	// the same source (nothing was written for them).
	AlreadyAdded []string `json:"already_added,omitempty"`
	// Renamed and Moved list what adding a marketplace again changed in
	// plugins it added before (see marketplace_add.go).
	Renamed []PluginRename `json:"renamed,omitempty"`
	Moved   []PluginMove   `json:"moved,omitempty"`
	// Dialects are the agents whose manifests plugin add found in the
	// source, when more than one (see pluginfmt.Layout.Dialects).
	Dialects []pluginfmt.Dialect `json:"dialects,omitempty"`
	// Unreached is what plugin add found in the source beside what it
	// added: skill folders that no plugin of its layout reaches.
	Unreached *Unreached `json:"unreached,omitempty"`
	// MarketplaceNews are the plugins marketplaces list since the commit
	// the previous sync fetched, not added (see marketplace_news.go).
	MarketplaceNews []MarketplaceNews `json:"marketplace_news,omitempty"`
}

// Unreached are the skill folders of a source that no plugin of its
// layout reaches (pluginfmt.Unreached), none of them added, and the
// folders that take them in: plugin add SOURCE#FOLDER/ (or --path
// FOLDER), most skills first (pluginfmt.UnreachedFolders).
type Unreached struct {
	Skills  []string                    `json:"skills"`
	Folders []pluginfmt.UnreachedFolder `json:"folders"`
}

// SkippedUntrusted is a PluginReport's Skipped for a plugin whose source
// came from a remote and waits for 'skillstore plugin trust'.
const SkippedUntrusted = "untrusted: came from a remote; approve it with 'skillstore plugin trust'"

// PluginReport is one plugin's part of a sync.
type PluginReport struct {
	Plugin string `json:"plugin"`
	Source string `json:"source"`
	Commit string `json:"commit,omitempty"` // fetched commit of a git source
	// Release is the release a source following tags is at after the
	// sync, OldRelease the one it was at before, when the sync moved it.
	Release    string        `json:"release,omitempty"`
	OldRelease string        `json:"old_release,omitempty"`
	Skipped    string        `json:"skipped,omitempty"` // "paused", "disabled" or SkippedUntrusted
	Skills     []SkillReport `json:"skills"`
	Error      string        `json:"error,omitempty"`
	// Note is a remark on an added plugin ("it holds no skills yet").
	Note string `json:"note,omitempty"`
	// Entry is the marketplace entry's name when plugin add gave the
	// plugin another id, because IDTakenBy (a plugin of another source)
	// holds that name.
	Entry     string `json:"entry,omitempty"`
	IDTakenBy string `json:"id_taken_by,omitempty"`
	// Parts is the sync of the plugin's parts, "PLUGIN:_plugin" (see
	// plugin_parts.go); nil when the plugin has none.
	Parts *SkillReport `json:"parts,omitempty"`
	// DisabledByDefault is set when plugin add added the plugin disabled,
	// as its manifest (or marketplace entry) says "defaultEnabled": false.
	DisabledByDefault bool `json:"disabled_by_default,omitempty"`
	// Dependencies are how the store meets the plugin's dependencies
	// (Claude Code's "dependencies"), reported when the plugin is added
	// and when a sync changes it.
	Dependencies []plugins.DependencyStatus `json:"dependencies,omitempty"`
	// Err is the error behind Error, for callers that explain it.
	Err error `json:"-"`

	// deps are the plugin's dependencies to check (see
	// checkDependencies), mkt its marketplace's name in its file.
	deps []pluginfmt.Dependency
	mkt  string
}

// SkillReport is one skill's part of a sync.
type SkillReport struct {
	Skill          string   `json:"skill"`
	Classification Class    `json:"classification"`
	OldVersion     int      `json:"old_version,omitempty"`
	NewVersion     int      `json:"new_version,omitempty"`
	Upstream       string   `json:"upstream,omitempty"`   // the upstream snapshot commit
	Candidate      string   `json:"candidate,omitempty"`  // a new candidate commit
	Superseded     string   `json:"superseded,omitempty"` // the candidate it replaced
	Conflicts      []string `json:"conflicts,omitempty"`
	Risk           string   `json:"risk,omitempty"`
	// Findings are the safety check's findings on the upstream tree
	// against the published version (those already there marked known).
	Findings []safety.Finding `json:"findings,omitempty"`
	Error    string           `json:"error,omitempty"`

	// MergeResolved lists the conflicts the skill-aware rules resolved
	// ("SKILL.md:12 sections"), as the candidate's Merge-Resolved trailers.
	MergeResolved []string `json:"merge_resolved,omitempty"`

	// Warnings are the validation policy's warnings about a new upstream
	// SKILL.md (discover.Check, lenient): reported, never refusing it.
	Warnings []discover.Diagnostic `json:"warnings,omitempty"`

	// Paths lists the files the update adds, changes or removes against
	// the published version (plugin parts only: every change to them is
	// cold, see reload.ClassifyParts).
	Paths []string `json:"paths,omitempty"`

	// LeftOut lists what was left out (see intake.go): the whole skill
	// (Classification ClassLeftOut: a new skill is not added, an update
	// is held at the published version), or files of the upstream tree
	// the new snapshot goes in without (reported by the sync that first
	// meets them).
	LeftOut []LeftOut `json:"left_out,omitempty"`
	// RiskAccepted is set when a 'plugin trust PLUGIN:SKILL' acceptance of
	// this very tree let a risk above the allowed one in.
	RiskAccepted bool `json:"risk_accepted,omitempty"`

	// held is the store name and upstream tree of a skill left out whole,
	// for the held memo (see saveHeld).
	held [2]string
}

// Changed reports whether the skill's sync wrote anything a person should hear of.
func (s SkillReport) Changed() bool {
	switch s.Classification {
	case ClassUnchanged, ClassPending:
		return s.Superseded != "" || s.Error != "" || len(s.LeftOut) > 0
	case ClassLeftOut:
		// Held back again, for the same upstream tree: nothing new.
		return slices.ContainsFunc(s.LeftOut, func(l LeftOut) bool { return !l.Again })
	}
	return true
}

// Failed reports whether any plugin or skill failed, or a part was left
// out: both make sync (and plugin add) exit 1, the rest having gone in.
func (r *Report) Failed() bool {
	if r.LeftOutParts() > 0 {
		return true
	}
	for _, p := range r.Plugins {
		if p.Error != "" {
			return true
		}
		for _, s := range p.Skills {
			if s.Error != "" {
				return true
			}
		}
	}
	return false
}

// Run fetches every enabled, unpaused plugin (or those named), snapshots
// each skill's upstream tree and classifies it against the published
// version. The git sources are fetched first, concurrently and with no lock
// held (see [plugins.Prefetch]), so a slow or hung server never keeps other
// commands waiting; the classification reads under the shared lock, and
// the exclusive lock is taken only when there is something to write, to
// write it (see [store.Store.UpdateIfWrites]). A
// failing plugin is reported and the others go on; the returned error is
// for what stops the whole sync (the lock, an unknown plugin id, a failed
// write).
func Run(ctx context.Context, s *store.Store, opts Options) (*Report, error) {
	pre, err := prefetchPlugins(ctx, s, opts.Plugins, opts.FetchProgress)
	if err != nil {
		return nil, err
	}
	defer pre.Close()
	if s.Options().AfterPrefetch != nil {
		s.Options().AfterPrefetch()
	}
	// Classified under the shared lock: a sync that finds nothing to
	// write (the usual cron run) never keeps readers waiting. Large
	// three-way merges are computed with no lock held at all: the sync is
	// planned, then run (candidates.WriteAhead).
	var rep *Report
	err = candidates.WriteAhead(ctx, s, func(ahead *merge.Ahead) error {
		opts.ahead = ahead
		_, err := s.UpdateIfWrites(ctx, func(tx *store.Tx) error {
			var err error
			rep, err = syncPlugins(ctx, tx, pre, opts)
			return err
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// syncPlugins is [Run] inside a transaction, reading the sources pre
// holds from it.
func syncPlugins(ctx context.Context, tx *store.Tx, pre *plugins.Prefetched, opts Options) (*Report, error) {
	// The stat cache loads while the plugin records are read.
	loaded := make(chan *store.StatCache, 1)
	go func() { loaded <- tx.Store().StatCache() }()
	recs, err := plugins.List(tx.Reader)
	cache := <-loaded
	if err != nil {
		return nil, err
	}
	all := recs
	if len(opts.Plugins) > 0 {
		var picked []*plugins.Plugin
		for _, id := range opts.Plugins {
			i := slices.IndexFunc(recs, func(p *plugins.Plugin) bool { return p.ID == id })
			if i < 0 {
				return nil, fmt.Errorf("plugin %q: %w", id, store.ErrUnknownPlugin)
			}
			picked = append(picked, recs[i])
		}
		recs = picked
	}
	if opts, err = withAccepted(tx, opts); err != nil {
		return nil, err
	}
	rep := &Report{Plugins: []PluginReport{}}
	// Plugins whose source came from a remote wait for a person's
	// approval (plugin trust): their sources are never read.
	untrusted, err := plugins.Untrusted(tx.Reader)
	if err != nil {
		return nil, err
	}
	trusted := recs[:0:0]
	for _, p := range recs {
		if _, ok := untrusted[p.ID]; ok {
			rep.Plugins = append(rep.Plugins, PluginReport{Plugin: p.ID, Source: p.Source.String(), Skills: []SkillReport{}, Skipped: SkippedUntrusted})
			continue
		}
		trusted = append(trusted, p)
	}
	recs = allowedByPolicy(tx, trusted, rep)
	cc := newCommitCache(tx.Reader)
	ahead := readFoldersAhead(ctx, recs, cache)
	defer ahead.stop()
	var synced []*plugins.Plugin
	var watch newsWatch
	readErrs := map[string]string{}
	for i, p := range recs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pr := PluginReport{Plugin: p.ID, Source: p.Source.String(), Skills: []SkillReport{}}
		switch {
		case p.Disabled:
			pr.Skipped = "disabled"
		case p.Paused:
			pr.Skipped = "paused"
		default:
			if opts.Progress != nil {
				opts.Progress(p.ID, i, len(recs))
			}
			before, _ := tx.Ref(store.SourceRef(p.ID))
			up, ok, err := ahead.take(ctx, i)
			if !ok {
				up, err = plugins.ReadUpstream(ctx, tx, pre, p, cache)
			}
			synced = append(synced, p)
			if err != nil && ctx.Err() == nil {
				readErrs[p.ID] = err.Error()
			}
			if err == nil {
				restore := tx.Savepoint()
				if err = syncPlugin(tx, p, up, opts, cc, &pr); errors.Is(err, ErrStrict) {
					restore() // all or nothing: nothing of this plugin is written
				}
				if err == nil {
					watch.note(p, before, up)
				}
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				pr.Error, pr.Err = err.Error(), err
				tx.Store().Logger().Debug("plugin sync failed", "plugin", p.ID, "err", err)
			}
			for _, skill := range append(slices.Clone(p.Skills), store.PluginPartsName) {
				if _, ok := tx.Ref(store.CandidateRef(store.QualifiedName(p.ID, skill))); ok {
					rep.CandidatesWaiting++
				}
			}
		}
		rep.Plugins = append(rep.Plugins, pr)
	}
	ahead.stop()
	if err := opts.ahead.Err(); err != nil {
		return nil, err // planned: the merges are computed, then the sync runs again
	}
	rep.MarketplaceNews = watch.news(all)
	if err := checkDependencies(tx.Reader, rep); err != nil {
		return nil, err
	}
	plugins.RecordSourceErrors(tx, synced, readErrs)
	if err := saveHeld(tx, rep); err != nil {
		tx.Store().Logger().Debug("held skills not saved", "err", err)
	}
	if err := tx.SaveStatCache(cache); err != nil {
		tx.Store().Logger().Debug("stat cache not saved", "err", err)
	}
	return rep, nil
}

// syncPlugin syncs one plugin. Errors of single skills are recorded in
// their reports; the error returned is for the plugin as a whole.
func syncPlugin(tx *store.Tx, p *plugins.Plugin, up *plugins.Upstream, opts Options, cc *commitCache, pr *PluginReport) error {
	if p.Source.Fetched() {
		pr.Commit = up.Fetched.Commit.String()
		if cur, _ := tx.Ref(store.SourceRef(p.ID)); cur != up.Fetched.Commit {
			tx.SetRef(store.SourceRef(p.ID), up.Fetched.Commit)
		}
	}
	next := *p
	next.Skills = slices.Clone(p.Skills)
	next.Removed = slices.Clone(p.Removed)
	next.Name, next.Version = up.Layout.Name, up.Layout.Version
	next.Release = up.Fetched.Version // "" for a branch or a folder: no release
	if next.Release != "" {
		pr.Release = next.Release
		if p.Release != "" && p.Release != next.Release {
			pr.OldRelease = p.Release
		}
	}
	names := make([]string, 0, len(up.Skills))
	for name := range up.Skills {
		names = append(names, name)
	}
	slices.Sort(names)
	var failed []string
	for _, name := range names {
		if slices.Contains(p.Adopted, name) || !next.Owns(name) && !p.Selects(name) {
			continue
		}
		if !next.Owns(name) {
			if err := plugins.Claim(tx, p, name); err != nil {
				pr.Skills = append(pr.Skills, SkillReport{Skill: name, Classification: ClassNew, Error: err.Error()})
				failed = append(failed, name)
				continue
			}
			next.Skills = append(next.Skills, name)
			slices.Sort(next.Skills)
		}
		next.Removed = slices.DeleteFunc(next.Removed, func(s string) bool { return s == name })
		sr := syncSkill(tx, &next, up, up.Skills[name], opts, cc)
		if sr.Error != "" {
			failed = append(failed, name)
		}
		if sr.Classification == ClassLeftOut {
			if _, published := tx.Ref(store.SkillRef(store.QualifiedName(p.ID, name))); !published {
				// Not added: owned from the sync that takes it in.
				next.Skills = slices.DeleteFunc(next.Skills, func(s string) bool { return s == name })
			}
		}
		pr.Skills = append(pr.Skills, sr)
	}
	for _, d := range up.Layout.LeftOut {
		if p.Selects(d.Name) && !slices.Contains(p.Adopted, d.Name) {
			pr.Skills = append(pr.Skills, layoutLeftOut(d, p, opts))
		}
	}
	for _, name := range p.Skills {
		if _, ok := up.Skills[name]; ok || slices.Contains(next.Removed, name) {
			continue
		}
		next.Removed = append(next.Removed, name)
		pr.Skills = append(pr.Skills, SkillReport{Skill: name, Classification: ClassRemoved})
	}
	// Dependencies are checked when the plugin changes (and when it is
	// added), not on every quiet sync: cron does not repeat a warning.
	if !pluginEqual(p, &next) || slices.ContainsFunc(pr.Skills, SkillReport.Changed) {
		pr.deps = up.Layout.Dependencies
	}
	partsErr := syncParts(tx, &next, up, opts, cc, pr)
	if opts.Strict && (len(failed) > 0 || partsErr != nil || pluginLeftOut(pr)) {
		return strictFailure(pr, failed, partsErr)
	}
	if !pluginEqual(p, &next) {
		tx.NoteState(fmt.Sprintf("plugin %s: sync", p.ID), store.Trailer{Key: store.TrailerPlugin, Value: p.ID})
		if err := plugins.Put(tx, &next); err != nil {
			return err
		}
		*p = next
	}
	if len(failed) > 0 {
		return &SkillsFailedError{Skills: failed}
	}
	return partsErr
}

// SkillsFailedError is the error of a plugin whose sync went on past the
// skills that failed: each is reported with its own error
// (SkillReport.Error), and the plugin's error only lists them.
type SkillsFailedError struct{ Skills []string }

func (e *SkillsFailedError) Error() string {
	if len(e.Skills) == 1 {
		return "1 skill failed: " + e.Skills[0]
	}
	return fmt.Sprintf("%d skills failed: %s", len(e.Skills), strings.Join(e.Skills, ", "))
}

func pluginEqual(a, b *plugins.Plugin) bool {
	return a.Name == b.Name && a.Version == b.Version && a.Release == b.Release &&
		slices.Equal(a.Skills, b.Skills) && slices.Equal(a.Removed, b.Removed)
}

// skillError renders err for a report.
func skillError(err error) string {
	var rej *safety.RejectedError
	if errors.As(err, &rej) {
		return rej.Error()
	}
	return err.Error()
}
