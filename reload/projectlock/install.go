package projectlock

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	// the lock cannot be restored exactly, no target is touched, and
	// every folder that then differs from the lock is a failure.
	Frozen bool
	// AllowLocal names sources on this machine the lock may use (the
	// lock is a file others write: see store.CheckNamedSource).
	AllowLocal []string
	// Target are the options of the export into the project's targets.
	Target target.Options
}

// installer holds one install's state.
type installer struct {
	s     *store.Store
	lock  *Lock
	opts  InstallOptions
	rep   *Report
	found map[string]store.Version // locked skill name → this store's version with its tree
	// pluginErr is why a plugin the lock needs could not be added.
	pluginErr map[string]string
	// noAdd is set when a frozen install added no plugin (it was failing).
	noAdd bool
}

// Install restores a project's lock file into its targets: the versions
// the store has with the lock's trees; the plugins it lacks, added at the
// locked commits (then set back to follow the lock's ref, so the next
// sync updates them as usual); the versions only stores have, pulled from
// the team remote the lock names (recorded as a remote when the store has
// none of that URL). The project's targets are recorded (or updated) and
// pinned to the lock's versions (see target.Pin), and exported; each
// folder is then compared with the lock, tree by tree.
//
// A part that cannot be restored is named with why and left out, the rest
// restored; with Frozen nothing is exported then, and the error is a
// *FrozenError listing every difference. A plugin whose upstream has moved
// since the lock is reported (PluginResult.Moved) and installed at the
// locked commit all the same.
func Install(ctx context.Context, s *store.Store, opts InstallOptions) (*Report, error) {
	path := Path(opts.Project)
	l, problems, err := Read(path)
	if err != nil {
		return nil, err
	}
	in := &installer{s: s, lock: l, opts: opts, found: map[string]store.Version{}, pluginErr: map[string]string{},
		rep: &Report{Lock: path, Frozen: opts.Frozen, Problems: problems, Plugins: []PluginResult{}, Skills: []SkillResult{}, Targets: []TargetResult{}}}
	for _, lp := range l.Plugins {
		in.rep.Plugins = append(in.rep.Plugins, PluginResult{ID: lp.ID, Commit: lp.Commit})
	}
	if opts.Frozen && len(problems) > 0 {
		return in.rep, in.frozenError()
	}
	if err := in.restore(ctx); err != nil {
		return in.rep, err
	}
	if opts.Frozen && in.rep.Failed() {
		return in.rep, in.frozenError()
	}
	if err := in.install(ctx); err != nil {
		return in.rep, err
	}
	if opts.Frozen && in.rep.Failed() {
		return in.rep, in.frozenError()
	}
	return in.rep, nil
}

// restore makes the store hold every locked version it can: found in the
// store, pulled from the team remote, or mirrored by adding the plugin at
// the locked commit. The team remote goes first: it holds the history of
// the plugins' skills too, and a plugin added here before a pull would
// give this store a history of its own that the pull then has to merge.
// A frozen install whose team remote could not give a local version adds
// no plugin: it fails anyway, and leaves the store as it was for the next.
func (in *installer) restore(ctx context.Context) error {
	if err := in.find(ctx); err != nil {
		return err
	}
	if in.lock.Remote != nil && len(in.missing()) > 0 {
		in.pull(ctx)
		if err := in.find(ctx); err != nil {
			return err
		}
	}
	if in.opts.Frozen && in.localMissing() {
		in.noAdd = true
	} else if err := in.addPlugins(ctx); err != nil {
		return err
	}
	if err := in.find(ctx); err != nil {
		return err
	}
	in.checkMoves(ctx)
	in.explain()
	return nil
}

// find looks up each locked skill not found yet among the versions of the
// store's skill of that name, then among the team remote's versions the
// last pull saw (its tracking ref: a history that diverged from this
// store's waits there, checked by pull like any other): the one whose
// tree is the lock's.
func (in *installer) find(ctx context.Context) error {
	return in.s.View(ctx, func(r *store.Reader) error {
		for _, sk := range in.lock.Skills {
			if _, ok := in.found[sk.Name]; ok {
				continue
			}
			tree, _ := store.ParseHash(sk.Tree)
			for _, ref := range in.refsOf(sk.Name) {
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

// refsOf are the refs whose history may hold a version of skill name:
// its published ref, and the team remote's as this store tracks it.
func (in *installer) refsOf(name string) []string {
	refs := []string{store.SkillRef(name)}
	if u := in.rep.Remote; u != nil && u.Error == "" {
		refs = append(refs, store.RemoteRefPrefix+u.Name+"/"+strings.TrimPrefix(store.SkillRef(name), "refs/"))
	}
	return refs
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

// localMissing reports whether a missing version is one no upstream has.
func (in *installer) localMissing() bool {
	for _, sk := range in.missing() {
		if sk.Local {
			return true
		}
	}
	return false
}

// pull brings the team remote's versions: through the store's remote of
// the lock's URL, or one recorded for it under the lock's name.
func (in *installer) pull(ctx context.Context) {
	lr := in.lock.Remote
	use := &RemoteUse{Name: lr.Name, URL: lr.URL}
	in.rep.Remote = use
	fail := func(err error) { use.Error = err.Error() }
	src := plugins.Source{Kind: plugins.SourceGit, URL: lr.URL}
	if err := plugins.CheckNamedSource(src, in.opts.AllowLocal); err != nil {
		fail(fmt.Errorf("the lock's team remote %w", err))
		return
	}
	if err := plugins.CheckSource(in.s, src, ""); err != nil {
		fail(err) // before the remote is recorded: the policy keeps it out
		return
	}
	rems, err := remote.List(ctx, in.s)
	if err != nil {
		fail(err)
		return
	}
	name := ""
	for _, r := range rems {
		if r.URL == lr.URL {
			name = r.Name
			break
		}
	}
	for _, r := range rems {
		if name == "" && r.Name == lr.Name {
			fail(fmt.Errorf("this store's remote %s is %s, the lock's team remote is %s: add the lock's under another name ('skillstore remote add NAME %s'), then install again", r.Name, r.Redacted(), lr.URL, lr.URL))
			return
		}
	}
	if name == "" {
		if _, err := remote.Add(ctx, in.s, lr.Name, lr.URL); err != nil {
			fail(err)
			return
		}
		name, use.Added = lr.Name, true
	}
	use.Name = name
	rep, err := remote.Pull(ctx, in.s, remote.PullOptions{Remote: name})
	if err != nil {
		fail(err)
		return
	}
	use.Skills = len(rep.Skills)
}

// addPlugins adds each locked plugin the store lacks and a missing skill
// needs, at the locked commit, then sets its ref back to the lock's.
func (in *installer) addPlugins(ctx context.Context) error {
	need := map[string]bool{}
	for _, sk := range in.missing() {
		if id, _ := store.SplitName(sk.Name); id != "" && !sk.Local {
			need[id] = true
		}
	}
	var have map[string]*plugins.Plugin
	err := in.s.View(ctx, func(r *store.Reader) error {
		ps, err := plugins.List(r)
		have = map[string]*plugins.Plugin{}
		for _, p := range ps {
			have[p.ID] = p
		}
		return err
	})
	if err != nil {
		return err
	}
	for i, lp := range in.lock.Plugins {
		res := &in.rep.Plugins[i]
		cur, ok := have[lp.ID]
		switch {
		case ok && !sameSource(cur.Source, lp):
			res.Error = fmt.Sprintf("this store's plugin %s follows %s, the lock's follows %s: its skills are not installed (remove or re-add the plugin to follow the lock's source)", lp.ID, cur.Source, lockSource(lp))
		case !ok && need[lp.ID]:
			if err := in.addPlugin(ctx, lp); err != nil {
				res.Error = err.Error()
			} else {
				res.Added = true
			}
		}
		if res.Error != "" {
			in.pluginErr[lp.ID] = res.Error
		}
	}
	return nil
}

// addPlugin adds a plugin at the lock's commit with the lock's selection,
// through plugin add's own code (the source policy, the intake checks).
func (in *installer) addPlugin(ctx context.Context, lp Plugin) error {
	src := lockSource(lp)
	if err := plugins.CheckNamedSource(src, in.opts.AllowLocal); err != nil {
		return fmt.Errorf("plugin %s: the lock's source %w", lp.ID, err)
	}
	pinned := src
	if src.Kind == plugins.SourceGit {
		pinned.Ref = lp.Commit
	}
	rep, err := pluginsync.Add(ctx, in.s, pinned, pluginsync.AddOptions{ID: lp.ID, Skills: lp.Select})
	if err != nil {
		return fmt.Errorf("plugin %s: %w", lp.ID, err)
	}
	if rep != nil && len(rep.AlreadyAdded) > 0 {
		return nil
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
	return plugins.Source{Kind: plugins.SourceKind(lp.Kind), URL: lp.URL, Ref: lp.Ref, Path: lp.Path, Selector: lp.Selector}
}

// sameSource reports whether a store's plugin follows the lock's source
// (its ref aside: a pin moved since is still the same plugin).
func sameSource(cur plugins.Source, lp Plugin) bool {
	want := lockSource(lp)
	cur.Ref, want.Ref = "", ""
	return cur == want
}

// checkMoves asks each locked git plugin's source where the lock's ref is
// now, and reports a move: the install keeps the locked commit.
func (in *installer) checkMoves(ctx context.Context) {
	var reqs []plugins.FetchRequest
	for _, lp := range in.lock.Plugins {
		if lp.Kind != string(plugins.SourceGit) || in.pluginErr[lp.ID] != "" {
			continue
		}
		if plugins.CheckNamedSource(lockSource(lp), in.opts.AllowLocal) != nil {
			continue
		}
		have, _ := store.ParseHash(lp.Commit)
		reqs = append(reqs, plugins.FetchRequest{Source: lockSource(lp), Have: have})
	}
	pre := plugins.Prefetch(ctx, in.s, reqs, nil)
	defer pre.Close()
	for i, lp := range in.lock.Plugins {
		res := &in.rep.Plugins[i]
		if lp.Kind != string(plugins.SourceGit) || res.Error != "" {
			continue
		}
		src := lockSource(lp)
		if tip, ok := pre.Commit(src); ok && tip.String() != lp.Commit {
			res.Moved = fmt.Sprintf("%s has moved on upstream since the lock (%s -> %s): installed at the lock's commit; 'skillstore sync %s' then 'skillstore lock' moves the project", refName(lp.Ref), short(lp.Commit), short(tip.String()), lp.ID)
		} else if err := pre.Err(src); err != nil {
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
	case !sk.Local && in.noAdd:
		return fmt.Sprintf("%s: not installed: a frozen install that cannot restore the local versions adds no plugin", label)
	case !sk.Local:
		return fmt.Sprintf("%s: no version in this store has the lock's tree %s, and plugin %s's source at the locked commit does not give it (this store's plugin may have been added after that commit, or the lock was edited)", label, short(sk.Tree), id)
	case in.lock.Remote == nil:
		return fmt.Sprintf("%s is a local version (tree %s) and the lock names no team remote to take it from: in the store that wrote the lock, add a remote ('skillstore remote add origin URL'), push, and run 'skillstore lock' again", label, short(sk.Tree))
	case in.rep.Remote != nil && in.rep.Remote.Error != "":
		return fmt.Sprintf("%s is a local version (tree %s) on the team remote %s, which could not be read: %s", label, short(sk.Tree), in.lock.Remote.Name, in.rep.Remote.Error)
	}
	return fmt.Sprintf("%s is a local version (tree %s) that is not on the team remote %s (%s): it must be pushed first: run 'skillstore push' in the store that wrote the lock, then install again", label, short(sk.Tree), in.lock.Remote.Name, in.lock.Remote.URL)
}
