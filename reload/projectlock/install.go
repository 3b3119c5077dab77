package projectlock

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
	"github.com/skillstore/skillstore/store/remote"
)

// InstallOptions are what Install needs besides the store.
type InstallOptions struct {
	// Project is the project's root (absolute); its lock file is read.
	Project string
	// Frozen makes the install all or nothing, for CI: when any part of
	// the lock cannot be restored exactly, nothing is written (no ref,
	// state record, plugin, remote, target record or folder), and every
	// folder that would then differ from the lock is a failure.
	Frozen bool
	// AllowLocal names sources on this machine the lock may use (the
	// lock is a file others write: see store.CheckNamedSource).
	AllowLocal []string
	// RememberRemote records the lock's team remote as a remote of the
	// store (under the lock's name, unless the store has one of that URL
	// already), for the user's own push and pull. Without it no remote is
	// recorded: a lock names a URL, it does not choose where this store
	// pushes.
	RememberRemote bool
	// Target are the options of the export into the project's targets.
	Target target.Options
}

// A lock file is a request, not an authority: it comes with a cloned
// project, written by whoever wrote the project. Install takes exactly
// the versions it names, checks each one as the store checks what it
// takes in, and gives them to the project's targets only:
//
//   - a version only stores have (a managed skill, a local edit) is
//     fetched from the team remote the lock names, that skill's
//     published ref alone (never the rest of the remote), checked with
//     pull's safety checks, and kept under store.LockedRef: no published
//     skill of the store moves, no remote is recorded (unless
//     RememberRemote), so nothing of it reaches another target, and push
//     never sends anything to that URL;
//   - a plugin the store lacks is added at the locked commit through
//     plugin add's own code (the source policy, the intake checks), for
//     the project's targets only (plugins.ProjectOnly): the user's other
//     targets get it when the user adds it ('skillstore plugin add');
//   - everything that goes on the network (the team remote, the plugins'
//     sources at the locked commits, where the lock's refs are now) is
//     fetched first, into memory, with no lock held and nothing written;
//   - with Frozen the whole install is then rehearsed on a dry run of the
//     store (store.Store.DryRun, the targets' export planned, not made)
//     from what was fetched, and written only when the rehearsal matches
//     the lock in every part.

// installer holds one run of an install: the rehearsal of a frozen
// install, or the install itself.
type installer struct {
	s     *store.Store // the store written, or a dry run of it
	lock  *Lock
	opts  InstallOptions
	net   *fetched
	rep   *Report
	found map[string]store.Version // locked skill name → this store's version with its tree
	// pluginErr is why a plugin the lock needs could not be added.
	pluginErr map[string]string
	// takeErr is why the team remote's version of a skill was refused.
	takeErr map[string]string
}

// fetched is what the network phase brought, for the rehearsal and the
// install alike.
type fetched struct {
	have      map[string]*plugins.Plugin // the store's plugins when the install began
	remote    *remote.SkillsFetch        // nil when not asked, or failed
	remoteErr error
	sources   *plugins.Prefetched
}

func (f *fetched) close() { f.sources.Close() }

// Install restores a project's lock file into its targets: the versions
// the store has with the lock's trees; the versions only stores have,
// from the team remote the lock names; the plugins the store lacks,
// added at the locked commits (then set back to follow the lock's ref, so
// the next sync updates them as usual) and exported to this project's
// targets only. The project's targets are recorded (or updated), pinned
// to the lock's versions (see target.Pin) and exported; each folder is
// then compared with the lock, tree by tree. See above for what the lock
// is trusted with.
//
// A part that cannot be restored is named with why and left out, the rest
// restored; with Frozen nothing at all is written then, and the error is
// a *FrozenError listing every difference. A plugin whose upstream has
// moved since the lock is reported (PluginResult.Moved) and installed at
// the locked commit all the same.
func Install(ctx context.Context, s *store.Store, opts InstallOptions) (*Report, error) {
	path := Path(opts.Project)
	l, problems, err := Read(path)
	if err != nil {
		return nil, err
	}
	in := newInstaller(s, l, opts, path, problems)
	if opts.Frozen && len(problems) > 0 {
		return in.rep, in.frozenError(true)
	}
	if err := in.find(ctx); err != nil {
		return in.rep, err
	}
	if in.net, err = in.fetch(ctx); err != nil {
		return in.rep, err
	}
	defer in.net.close()
	if opts.Frozen {
		dry := newInstaller(s.DryRun(), l, opts, path, problems)
		dry.net, dry.found = in.net, maps.Clone(in.found)
		if err := dry.run(ctx); err != nil {
			return dry.rep, err
		}
		if dry.rep.Failed() {
			err := dry.frozenError(true)
			dry.rep.unwrite()
			return dry.rep, err
		}
	}
	packs := s.Packs()
	if err := in.run(ctx); err != nil {
		return in.rep, err
	}
	// A frozen install's one transaction merged its fetched packs; the
	// other adds each plugin in its own, and one pack is left for them all.
	if !opts.Frozen {
		s.MergeNewPacks(ctx, packs)
	}
	if opts.Frozen && in.rep.Failed() {
		return in.rep, in.frozenError(false)
	}
	return in.rep, nil
}

func newInstaller(s *store.Store, l *Lock, opts InstallOptions, path string, problems []Problem) *installer {
	in := &installer{s: s, lock: l, opts: opts, found: map[string]store.Version{}, pluginErr: map[string]string{}, takeErr: map[string]string{},
		rep: &Report{Lock: path, Frozen: opts.Frozen, Problems: problems, Plugins: []PluginResult{}, Skills: []SkillResult{}, Targets: []TargetResult{}}}
	for _, lp := range l.Plugins {
		in.rep.Plugins = append(in.rep.Plugins, PluginResult{ID: lp.ID, Commit: lp.Commit})
	}
	return in
}

// run restores the lock's versions into the store, then its targets.
func (in *installer) run(ctx context.Context) error {
	if err := in.restore(ctx); err != nil {
		return err
	}
	return in.install(ctx)
}

// fetch is the network phase: the team remote's versions of the local
// skills the store lacks, the sources of the plugins it lacks at the
// locked commits, and each git plugin's source at the lock's ref (to say
// whether upstream moved). Nothing is written.
func (in *installer) fetch(ctx context.Context) (*fetched, error) {
	f := &fetched{}
	err := in.s.View(ctx, func(r *store.Reader) error {
		ps, err := plugins.List(r)
		f.have = map[string]*plugins.Plugin{}
		for _, p := range ps {
			f.have[p.ID] = p
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var local []string
	need := map[string]bool{}
	for _, sk := range in.missing() {
		if id, _ := store.SplitName(sk.Name); sk.Local {
			local = append(local, sk.Name)
		} else {
			need[id] = true
		}
	}
	if lr := in.lock.Remote; lr != nil && len(local) > 0 {
		f.remoteErr = plugins.CheckNamedSource(plugins.Source{Kind: plugins.SourceGit, URL: lr.URL}, in.opts.AllowLocal)
		if f.remoteErr != nil {
			f.remoteErr = fmt.Errorf("the lock's team remote %w", f.remoteErr)
		} else {
			f.remote, f.remoteErr = remote.FetchSkills(ctx, in.s, lr.Name, lr.URL, local)
		}
	}
	// One fetch per source: the lock's ref, to say whether upstream moved,
	// which for a plugin the store lacks is a whole fetch that also serves
	// its locked commit when the ref has not moved (the common case: a
	// lock written from the tip). Only the pins of refs that moved are
	// fetched next, concurrently again.
	var reqs []plugins.FetchRequest
	var pins [][2]plugins.Source // a pinned source, and the lock's
	for _, lp := range in.lock.Plugins {
		src := lockSource(lp)
		if !src.Fetched() || plugins.CheckNamedSource(src, in.opts.AllowLocal) != nil {
			continue
		}
		have, _ := store.ParseHash(lp.Commit)
		// A source that is no git repository has no commit to pin: its
		// files now are fetched, and a tree the lock names that they no
		// longer hold is a difference --frozen reports.
		if _, ok := f.have[lp.ID]; !ok && need[lp.ID] && src.Kind == plugins.SourceGit {
			pin := src
			pin.Ref = lp.Commit
			pins = append(pins, [2]plugins.Source{pin, src})
			have = store.ZeroHash
		}
		reqs = append(reqs, plugins.FetchRequest{Source: src, Have: have})
	}
	f.sources = plugins.Prefetch(ctx, in.s, reqs, nil)
	var moved []plugins.FetchRequest
	for _, p := range pins {
		if !f.sources.Reuse(p[0], p[1]) {
			moved = append(moved, plugins.FetchRequest{Source: p[0]})
		}
	}
	if len(moved) > 0 {
		f.sources.Merge(plugins.Prefetch(ctx, in.s, moved, nil))
	}
	for _, p := range pins {
		plugins.PrefetchEntries(ctx, in.s, p[0], f.sources, nil)
	}
	return f, nil
}

// restore makes the store hold every locked version it can: found in the
// store, taken from the team remote, or mirrored by adding the plugin at
// the locked commit.
func (in *installer) restore(ctx context.Context) error {
	if err := in.takeVersions(ctx); err != nil {
		return err
	}
	if err := in.addPlugins(ctx); err != nil {
		return err
	}
	if err := in.find(ctx); err != nil {
		return err
	}
	if err := in.remember(ctx); err != nil {
		return err
	}
	in.reportMoves()
	in.explain()
	return nil
}

// find looks up each locked skill not found yet among the versions of the
// store's skill of that name, then among those an install took from a
// team remote (store.LockedRef): the one whose tree is the lock's.
func (in *installer) find(ctx context.Context) error {
	return in.s.View(ctx, func(r *store.Reader) error {
		for _, sk := range in.lock.Skills {
			if _, ok := in.found[sk.Name]; ok {
				continue
			}
			tree, _ := store.ParseHash(sk.Tree)
			for _, ref := range []string{store.SkillRef(sk.Name), store.LockedRef(sk.Name)} {
				v, ok, err := versionWithTree(r, sk.Name, ref, tree)
				if err != nil {
					return err
				}
				if ok {
					in.found[sk.Name] = v
					break
				}
			}
		}
		return nil
	})
}

// versionWithTree walks ref's first parents for the version of skill
// name whose tree is tree.
func versionWithTree(r *store.Reader, name, ref string, tree store.Hash) (store.Version, bool, error) {
	h, ok := r.Ref(ref)
	for ok && !h.IsZero() {
		v, err := r.VersionAt(name, h)
		if err != nil {
			return v, false, fmt.Errorf("skill %s: %w", name, err)
		}
		if v.Tree == tree {
			return v, true, nil
		}
		h = store.ZeroHash
		if len(v.Parents) > 0 {
			h = v.Parents[0]
		}
	}
	return store.Version{}, false, nil
}

// missing lists the locked skills the store has no version of yet.
func (in *installer) missing() []Skill {
	var out []Skill
	for _, sk := range in.lock.Skills {
		if _, ok := in.found[sk.Name]; !ok {
			out = append(out, sk)
		}
	}
	return out
}

// takeVersions takes from the team remote the local versions the store
// lacks, each checked alone (see remote.SkillsFetch.Take): one refused is
// named, the others are kept.
func (in *installer) takeVersions(ctx context.Context) error {
	lr := in.lock.Remote
	var want []Skill
	for _, sk := range in.missing() {
		if sk.Local {
			want = append(want, sk)
		}
	}
	if lr == nil || len(want) == 0 {
		return nil
	}
	use := &RemoteUse{Name: lr.Name, URL: lr.URL, Versions: []string{}}
	in.rep.Remote = use
	if in.net.remoteErr != nil {
		use.Error = in.net.remoteErr.Error()
		return nil
	}
	return in.s.Update(ctx, func(tx *store.Tx) error {
		for _, sk := range want {
			tree, _ := store.ParseHash(sk.Tree)
			v, err := in.net.remote.Take(tx, sk.Name, tree, 0)
			switch {
			case errors.Is(err, remote.ErrNotOnRemote):
			case err != nil:
				in.takeErr[sk.Name] = err.Error()
			default:
				in.found[sk.Name] = v
				use.Versions = append(use.Versions, fmt.Sprintf("%s@v%d", sk.Name, v.Number))
			}
		}
		return nil
	})
}

// remember records the lock's team remote when the user asked for it
// (RememberRemote), unless the store has a remote of that URL already.
func (in *installer) remember(ctx context.Context) error {
	lr := in.lock.Remote
	if !in.opts.RememberRemote || lr == nil {
		return nil
	}
	use := in.rep.Remote
	if use == nil {
		use = &RemoteUse{Name: lr.Name, URL: lr.URL, Versions: []string{}}
		in.rep.Remote = use
	}
	if use.Error != "" {
		return nil
	}
	src := plugins.Source{Kind: plugins.SourceGit, URL: lr.URL}
	if err := plugins.CheckNamedSource(src, in.opts.AllowLocal); err != nil {
		use.Error = fmt.Sprintf("the lock's team remote %v", err)
		return nil
	}
	if err := plugins.CheckSource(in.s, src, ""); err != nil {
		use.Error = err.Error()
		return nil
	}
	rems, err := remote.List(ctx, in.s)
	if err != nil {
		return err
	}
	for _, r := range rems {
		if r.URL == lr.URL {
			use.Name = r.Name
			return nil
		}
	}
	for _, r := range rems {
		if r.Name == lr.Name {
			use.Error = fmt.Sprintf("this store's remote %s is %s, the lock's team remote is %s: add the lock's under another name ('skillstore remote add NAME %s')", r.Name, r.Redacted(), lr.URL, lr.URL)
			return nil
		}
	}
	if in.s.IsDryRun() {
		return nil // a remote is git config, which a dry run does not write
	}
	if _, err := remote.Add(ctx, in.s, lr.Name, lr.URL); err != nil {
		use.Error = err.Error()
		return nil
	}
	use.Remembered = true
	return nil
}

// addPlugins adds each locked plugin the store lacks and a missing skill
// needs, at the locked commit, for this project's targets only; a plugin
// an earlier lock added goes to this project's targets too.
func (in *installer) addPlugins(ctx context.Context) error {
	need := map[string]bool{}
	for _, sk := range in.missing() {
		if id, _ := store.SplitName(sk.Name); id != "" && !sk.Local {
			need[id] = true
		}
	}
	var projectOnly map[string][]string
	err := in.s.View(ctx, func(r *store.Reader) error {
		var err error
		projectOnly, err = plugins.ProjectOnly(r)
		return err
	})
	if err != nil {
		return err
	}
	// A frozen install whose rehearsal passed adds its plugins in one
	// transaction (one write of their objects and refs); otherwise each
	// plugin is its own, so that one refused leaves the others added.
	together := in.opts.Frozen && !in.s.IsDryRun()
	var adds []int
	for i, lp := range in.lock.Plugins {
		res := &in.rep.Plugins[i]
		cur, ok := in.net.have[lp.ID]
		switch {
		case ok && !sameSource(cur.Source, lp):
			res.Error = fmt.Sprintf("this store's plugin %s follows %s, the lock's follows %s: its skills are not installed (remove or re-add the plugin to follow the lock's source)", lp.ID, cur.Source, lockSource(lp))
		case ok && projectOnly[lp.ID] != nil:
			if err := plugins.AddProjectOnly(ctx, in.s, lp.ID, in.opts.Project); err != nil {
				return err
			}
			res.ProjectOnly = true
		case !ok && need[lp.ID] && together:
			adds = append(adds, i)
		case !ok && need[lp.ID]:
			if err := in.addPlugin(ctx, lp); err != nil {
				res.Error = err.Error()
			} else {
				res.Added, res.ProjectOnly = true, true
			}
		}
		if res.Error != "" {
			in.pluginErr[lp.ID] = res.Error
		}
	}
	return in.addTogether(ctx, adds)
}

// addTogether adds the locked plugins at indexes adds as addPlugin does,
// in one transaction: all of them, or (on any error) none, the error
// returned.
func (in *installer) addTogether(ctx context.Context, adds []int) error {
	if len(adds) == 0 {
		return nil
	}
	var ids []string
	for _, i := range adds {
		lp := in.lock.Plugins[i]
		if err := plugins.CheckNamedSource(lockSource(lp), in.opts.AllowLocal); err != nil {
			return fmt.Errorf("plugin %s: the lock's source %w", lp.ID, err)
		}
		ids = append(ids, lp.ID)
	}
	// Recorded before the plugins exist: a crash in between never leaves
	// one exported to every target.
	if err := plugins.AddProjectOnlyAll(ctx, in.s, in.opts.Project, ids...); err != nil {
		return err
	}
	err := in.s.Update(ctx, func(tx *store.Tx) error {
		for _, i := range adds {
			if err := in.addPluginIn(ctx, tx, in.lock.Plugins[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if derr := plugins.DropProjectOnly(ctx, in.s, ids...); derr != nil {
			return errors.Join(err, derr)
		}
		return err
	}
	for _, i := range adds {
		in.rep.Plugins[i].Added, in.rep.Plugins[i].ProjectOnly = true, true
	}
	return nil
}

// addPluginIn adds a plugin at the lock's commit inside tx, then sets
// its ref back to the lock's.
func (in *installer) addPluginIn(ctx context.Context, tx *store.Tx, lp Plugin) error {
	src := lockSource(lp)
	pinned := src
	if src.Kind == plugins.SourceGit {
		pinned.Ref = lp.Commit
	}
	if _, err := pluginsync.AddFetchedIn(ctx, tx, in.net.sources, pinned, pluginsync.AddOptions{ID: lp.ID, Skills: lp.Select}); err != nil {
		return fmt.Errorf("plugin %s: %w", lp.ID, err)
	}
	if src.Kind == plugins.SourceGit && src.Ref != pinned.Ref {
		ref := src.Ref
		if _, err := plugins.SetSourceIn(tx, lp.ID, nil, &ref); err != nil && !errors.Is(err, store.ErrNoChange) {
			return fmt.Errorf("plugin %s: added at %s, but its ref could not be set back to %q: %w", lp.ID, short(lp.Commit), ref, err)
		}
	}
	return nil
}

// addPlugin adds a plugin at the lock's commit with the lock's selection,
// through plugin add's own code (the source policy, the intake checks),
// from the source fetched already.
func (in *installer) addPlugin(ctx context.Context, lp Plugin) error {
	src := lockSource(lp)
	if err := plugins.CheckNamedSource(src, in.opts.AllowLocal); err != nil {
		return fmt.Errorf("plugin %s: the lock's source %w", lp.ID, err)
	}
	pinned := src
	if src.Kind == plugins.SourceGit {
		pinned.Ref = lp.Commit
	}
	// Recorded before the plugin exists: a crash in between never leaves
	// it exported to every target.
	if err := plugins.AddProjectOnly(ctx, in.s, lp.ID, in.opts.Project); err != nil {
		return err
	}
	_, err := pluginsync.AddFetched(ctx, in.s, in.net.sources, pinned, pluginsync.AddOptions{ID: lp.ID, Skills: lp.Select})
	if err != nil {
		if derr := plugins.DropProjectOnly(ctx, in.s, lp.ID); derr != nil {
			return errors.Join(fmt.Errorf("plugin %s: %w", lp.ID, err), derr)
		}
		return fmt.Errorf("plugin %s: %w", lp.ID, err)
	}
	if src.Kind == plugins.SourceGit && src.Ref != pinned.Ref {
		ref := src.Ref
		if _, err := plugins.SetSource(ctx, in.s, lp.ID, nil, &ref); err != nil && !errors.Is(err, store.ErrNoChange) {
			return fmt.Errorf("plugin %s: added at %s, but its ref could not be set back to %q: %w", lp.ID, short(lp.Commit), ref, err)
		}
	}
	return nil
}

// lockSource is the store source of a locked plugin (its ref the lock's,
// not the commit).
func lockSource(lp Plugin) plugins.Source {
	return plugins.Source{Kind: plugins.SourceKind(lp.Kind), URL: lp.URL, Ref: lp.Ref, Tags: lp.Tags, SHA256: lp.SHA256, Path: lp.Path, Selector: lp.Selector}
}

// sameSource reports whether a store's plugin follows the lock's source
// (its ref aside: a pin moved since is still the same plugin).
func sameSource(cur plugins.Source, lp Plugin) bool {
	want := lockSource(lp)
	cur.Ref, want.Ref = "", ""
	return cur == want
}

// reportMoves says, for each locked git plugin, where the lock's ref is
// now upstream when it moved: the install keeps the locked commit.
func (in *installer) reportMoves() {
	for i, lp := range in.lock.Plugins {
		res := &in.rep.Plugins[i]
		if lp.Kind != string(plugins.SourceGit) || res.Error != "" || plugins.CheckNamedSource(lockSource(lp), in.opts.AllowLocal) != nil {
			continue
		}
		src := lockSource(lp)
		if tip, ok := in.net.sources.Commit(src); ok && tip.String() != lp.Commit {
			res.Moved = fmt.Sprintf("%s has moved on upstream since the lock (%s -> %s): installed at the lock's commit; 'skillstore sync %s' then 'skillstore lock' moves the project", refName(lp.Ref), short(lp.Commit), short(tip.String()), lp.ID)
		} else if err := in.net.sources.Err(src); err != nil {
			res.Note = "could not see whether upstream moved: " + err.Error()
		}
	}
}

func refName(ref string) string {
	if ref == "" {
		return "HEAD"
	}
	return ref
}

func short(h string) string { return h[:min(12, len(h))] }

// explain gives each locked skill its result: the version found, or why
// there is none.
func (in *installer) explain() {
	for _, sk := range in.lock.Skills {
		res := SkillResult{Name: sk.Name, Tree: sk.Tree}
		if v, ok := in.found[sk.Name]; ok {
			res.Version = v.Number
		} else {
			res.Error = in.whyMissing(sk)
			if id, _ := store.SplitName(sk.Name); !sk.Local && in.pluginErr[id] != "" {
				res.Because = id
			}
		}
		in.rep.Skills = append(in.rep.Skills, res)
	}
}

// whyMissing says why the store has no version of sk with the lock's tree.
func (in *installer) whyMissing(sk Skill) string {
	label := sk.Name
	if sk.Version != "" {
		label += "@" + sk.Version
	}
	id, _ := store.SplitName(sk.Name)
	switch {
	case !sk.Local && in.pluginErr[id] != "":
		return fmt.Sprintf("%s: not installed: its plugin %s was not (see above)", label, id)
	case !sk.Local:
		return fmt.Sprintf("%s: no version in this store has the lock's tree %s, and plugin %s's source at the locked commit does not give it (this store's plugin may have been added after that commit, or the lock was edited)", label, short(sk.Tree), id)
	case in.lock.Remote == nil:
		return fmt.Sprintf("%s is a local version (tree %s) and the lock names no team remote to take it from: in the store that wrote the lock, add a remote ('skillstore remote add origin URL'), push, and run 'skillstore lock' again", label, short(sk.Tree))
	case in.net.remoteErr != nil:
		return fmt.Sprintf("%s is a local version (tree %s) on the team remote %s, which could not be read (see above)", label, short(sk.Tree), in.lock.Remote.Name)
	case in.takeErr[sk.Name] != "":
		return fmt.Sprintf("%s is a local version (tree %s) that the team remote %s serves with a history this store refuses: %s", label, short(sk.Tree), in.lock.Remote.Name, in.takeErr[sk.Name])
	}
	return fmt.Sprintf("%s is a local version (tree %s) that is not on the team remote %s (%s): it must be pushed first: run 'skillstore push' in the store that wrote the lock, then install again", label, short(sk.Tree), in.lock.Remote.Name, in.lock.Remote.URL)
}
