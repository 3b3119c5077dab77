package projectlock

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/remote"
)

// ErrNoTargets is wrapped when a project has no target to lock.
var ErrNoTargets = errors.New("the project has no target")

// BuildOptions are what Build needs besides the store.
type BuildOptions struct {
	// Project is the project's root (absolute).
	Project string
	// Remote names the team remote to record; "" picks the store's only
	// remote, else its "origin", else none.
	Remote string
}

// Built is a lock made from a store, with what a teammate could not
// restore from it.
type Built struct {
	Lock *Lock
	// Targets are the project's targets the lock holds, to be pinned.
	Targets []target.Target
	// Warnings name versions a clone cannot install yet (local versions
	// with no team remote, or not pushed to it) and targets left out.
	Warnings []string
	// Uninstallable are the versions of Warnings that a clone cannot
	// install yet ("NAME@vN"): the lock is written, but does not work
	// for a teammate until they are pushed.
	Uninstallable []string
}

// Build makes the lock of a project: every flat target of the store that
// belongs to it, the latest published version of each active skill it
// selects (those that get a folder there), the plugins owning them at the
// commit the store last fetched, and the team remote. It writes nothing.
func Build(ctx context.Context, s *store.Store, opts BuildOptions) (*Built, error) {
	targets, skipped, err := projectTargets(ctx, s, opts.Project)
	if err != nil {
		return nil, err
	}
	rem, err := teamRemote(ctx, s, opts.Remote)
	if err != nil {
		return nil, err
	}
	b := &Built{Lock: &Lock{Version: FormatVersion, Remote: rem}, Targets: targets, Warnings: skipped}
	err = s.View(ctx, func(r *store.Reader) error {
		infos, err := r.List(false)
		if err != nil {
			return err
		}
		return b.fill(r, infos)
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// projectTargets are the project's flat targets; marketplace targets are
// named in warnings (their folders hold plugins, not skills).
func projectTargets(ctx context.Context, s *store.Store, project string) ([]target.Target, []string, error) {
	all, err := target.List(ctx, s, nil)
	if err != nil {
		return nil, nil, err
	}
	var out []target.Target
	var warnings []string
	for _, t := range all {
		if t.Project == "" || filepath.Clean(t.Project) != filepath.Clean(project) {
			continue
		}
		if t.IsMarketplace() {
			warnings = append(warnings, fmt.Sprintf("target %s is a %s: not locked (only skills folders are)", t.Name, t.Kind))
			continue
		}
		if rel := t.ProjectPath(); rel == "" || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
			warnings = append(warnings, fmt.Sprintf("target %s writes to %s, which is not a folder inside the project: not locked", t.Name, t.Dir))
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("%w at %s", ErrNoTargets, project)
	}
	return out, warnings, nil
}

// teamRemote is the remote the lock names, without a password.
func teamRemote(ctx context.Context, s *store.Store, name string) (*Remote, error) {
	rems, err := remote.List(ctx, s)
	if err != nil {
		return nil, err
	}
	pick := func(n string) *Remote {
		for _, r := range rems {
			if r.Name == n {
				return &Remote{Name: r.Name, URL: withoutPassword(r.URL)}
			}
		}
		return nil
	}
	switch {
	case name != "":
		if r := pick(name); r != nil {
			return r, nil
		}
		return nil, fmt.Errorf("remote %q: %w", name, remote.ErrUnknownRemote)
	case len(rems) == 1:
		return pick(rems[0].Name), nil
	}
	return pick(remote.DefaultRemote), nil
}

// fill adds the targets' skills, their plugins and the warnings.
func (b *Built) fill(r *store.Reader, infos []store.SkillInfo) error {
	active := map[string]store.SkillInfo{}
	var names []string
	for _, info := range infos {
		if info.Status == store.StatusActive && !store.IsPluginParts(info.Name) {
			active[info.Name] = info
			names = append(names, info.Name)
		}
	}
	used := map[string]bool{}
	for _, t := range b.Targets {
		var wanted []string
		for _, n := range names {
			if t.Wants(n) {
				wanted = append(wanted, n)
			}
		}
		folders := target.Folders(wanted) // skills that get no folder are not held
		lt := Target{Name: t.Name, Dir: t.ProjectPath(), Select: t.Skills, Except: t.Except, Skills: []string{}}
		for _, n := range wanted {
			if _, ok := folders[n]; ok {
				lt.Skills = append(lt.Skills, n)
				used[n] = true
			}
		}
		b.Lock.Targets = append(b.Lock.Targets, lt)
		if err := b.lockedWarnings(r, t, active, lt.Skills); err != nil {
			return err
		}
	}
	pluginsByID := map[string]*plugins.Plugin{}
	for _, n := range sortedKeys(used) {
		sk, err := b.skill(r, active[n], pluginsByID)
		if err != nil {
			return err
		}
		b.Lock.Skills = append(b.Lock.Skills, sk)
	}
	for _, id := range sortedKeys(pluginsByID) {
		b.Lock.Plugins = append(b.Lock.Plugins, lockedPlugin(r, pluginsByID[id]))
	}
	return nil
}

// skill is the lock's entry of a published skill; its plugin, if any,
// joins pluginsByID.
func (b *Built) skill(r *store.Reader, info store.SkillInfo, pluginsByID map[string]*plugins.Plugin) (Skill, error) {
	sk := Skill{Name: info.Name, Version: fmt.Sprintf("v%d", info.Number), Tree: info.Tree.String()}
	id, short := store.SplitName(info.Name)
	sk.Local = true
	if id != "" {
		p, err := plugins.Get(r, id)
		if err != nil {
			return sk, fmt.Errorf("skill %s: %w", info.Name, err)
		}
		pluginsByID[id] = p
		if p.Source.Fetched() {
			if up, ok := r.Ref(store.UpstreamRef(id, short)); ok {
				if c, err := r.Commit(up); err == nil && c.Tree == info.Tree {
					sk.Local = false // the version is upstream's at the locked commit
				}
			}
		}
	}
	if sk.Local {
		if w := b.localWarning(r, info); len(w) > 0 {
			b.Warnings = append(b.Warnings, w...)
			b.Uninstallable = append(b.Uninstallable, fmt.Sprintf("%s@v%d", info.Name, info.Number))
		}
	}
	return sk, nil
}

// lockedWarnings says when t holds a version this store keeps for the
// project only (an install took it from the team remote: store.LockedRef)
// and does not publish: the lock records what the store publishes, so
// that version moves to the store's, or leaves the lock. held are the
// skills the lock gives t.
func (b *Built) lockedWarnings(r *store.Reader, t target.Target, active map[string]store.SkillInfo, held []string) error {
	for _, n := range sortedKeys(t.Pins) {
		tree, ok := store.ParseHash(t.Pins[n])
		if !ok {
			continue
		}
		v, locked, err := versionWithTree(r, n, store.LockedRef(n), tree)
		if err != nil || !locked {
			return err
		}
		if _, published, err := versionWithTree(r, n, store.SkillRef(n), tree); err != nil || published {
			return err
		}
		now := "leaves it out"
		if info, ok := active[n]; ok && slices.Contains(held, n) {
			now = fmt.Sprintf("moves it to this store's v%d", info.Number)
		}
		b.Warnings = append(b.Warnings, fmt.Sprintf("target %s holds %s@v%d, which install took from the team remote for this project and this store does not publish: this lock %s; to keep it, record the team remote ('skillstore install --remember-remote') and pull, then lock again", t.Name, n, v.Number, now))
	}
	return nil
}

// localWarning says when a local version cannot reach a clone: no team
// remote, or not pushed to it (as far as this store saw at its last push
// or pull).
func (b *Built) localWarning(r *store.Reader, info store.SkillInfo) []string {
	name := fmt.Sprintf("%s@v%d", info.Name, info.Number)
	if b.Lock.Remote == nil {
		return []string{fmt.Sprintf("%s is a local version and the store has no team remote: a clone cannot install it (add one with 'skillstore remote add origin URL', push, then lock again)", name)}
	}
	tracking := store.RemoteRefPrefix + b.Lock.Remote.Name + "/" + strings.TrimPrefix(store.SkillRef(info.Name), "refs/")
	if at, ok := r.Ref(tracking); ok && (at == info.Commit || r.IsAncestor(info.Commit, at)) {
		return nil
	}
	return []string{fmt.Sprintf("%s is a local version not pushed to %s: run 'skillstore push' before a clone installs it", name, b.Lock.Remote.Name)}
}

// lockedPlugin is the lock's entry of a plugin: its source and the commit
// the store last fetched.
func lockedPlugin(r *store.Reader, p *plugins.Plugin) Plugin {
	lp := Plugin{ID: p.ID, Kind: string(p.Source.Kind), URL: p.Source.URL, Ref: p.Source.Ref, Tags: p.Source.Tags, SHA256: p.Source.SHA256, Path: p.Source.Path, Selector: p.Source.Selector, Select: p.Select}
	if h, ok := r.Ref(store.SourceRef(p.ID)); ok && p.Source.Fetched() {
		lp.Commit = h.String()
	}
	return lp
}

// Pin holds each of built's targets to the versions the lock names, so
// that export (and sync's export) writes exactly those there until the
// lock moves.
func Pin(ctx context.Context, s *store.Store, built *Built) error {
	trees := map[string]string{}
	for _, sk := range built.Lock.Skills {
		trees[sk.Name] = sk.Tree
	}
	for _, lt := range built.Lock.Targets {
		pins := map[string]string{}
		for _, n := range lt.Skills {
			pins[n] = trees[n]
		}
		if err := target.Pin(ctx, s, lt.Name, lt.selection(), pins); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// withoutPassword drops a URL's password: a lock file is committed and
// shared.
func withoutPassword(raw string) string {
	if !hasPassword(raw) {
		return raw
	}
	u, _ := url.Parse(raw)
	u.User = url.User(u.User.Username())
	return u.String()
}
