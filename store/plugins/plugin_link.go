package plugins

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/npxhash"
	"github.com/skillstore/skillstore/store"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Linking a managed skill to a plugin: a skill imported as a copy of an
// upstream skill (by hand, or installed by another tool) becomes that
// plugin's skill without losing its history. FindBase picks the upstream
// commit the copy came from; its skill tree becomes the skill's first
// upstream snapshot, and a version with the published tree unchanged takes
// that snapshot in as a second parent, so it is the accepted base that
// sync's merge-base finds. What the copy changed against it is then a
// local edit: the next upstream change merges three-way against it, and an
// unedited copy fast-forwards.

// LinkResult is what LinkSkill did.
type LinkResult struct {
	Plugin string `json:"plugin"`
	Skill  string `json:"skill"`
	// Base is the upstream commit chosen as the skill's base.
	Base Base `json:"base"`
	// Upstream is the snapshot commit written on the skill's upstream ref.
	Upstream string `json:"upstream"`
	// Version is the new version taking the snapshot in (same tree as the
	// version before it).
	Version int `json:"version"`
	// LocalEdit reports that the published tree differs from the base:
	// that difference is kept as a local edit.
	LocalEdit bool `json:"local_edit"`
	// Select is the plugin's selection afterwards; SelectChanged reports
	// that it was extended to take the skill.
	Select        []string `json:"select"`
	SelectChanged bool     `json:"select_changed,omitempty"`
}

// Link makes the managed skill a skill of plugin id (see above). A
// git source must have been fetched and have a skill of that name at the
// fetched commit; up to DefaultBaseSearchLimit commits of its history are
// searched. A folder source has no history: its skill folder as it is now
// is the base (Base.Commit zero), exact or not.
func Link(ctx context.Context, s *store.Store, id, skill string) (*LinkResult, error) {
	var res *LinkResult
	err := s.Update(ctx, func(tx *store.Tx) error {
		var err error
		res, err = linkSkillTx(tx, id, skill)
		return err
	})
	return res, err
}

// linkSkillTx is [Link] inside a transaction.
func linkSkillTx(tx *store.Tx, id, skill string) (*LinkResult, error) {
	return linkSkill(tx, id, skill, baseHint{})
}

// baseHint is what an installer recorded of the upstream version it
// installed, tried before the search for the closest commit: Hash, a
// commit or a folder's tree id; ContentHash, npx skills' computedHash of
// the folder (internal/npxhash).
type baseHint struct {
	Hash        store.Hash
	ContentHash string
}

// linkSkill is LinkSkill trying hint first (a lock file's skillFolderHash:
// the folder's tree at install, or its computedHash) as an exact base.
func linkSkill(tx *store.Tx, id, skill string, hint baseHint) (*LinkResult, error) {
	p, err := Get(tx.Reader, id)
	if err != nil {
		return nil, err
	}
	if p.Owns(skill) {
		return nil, fmt.Errorf("skill %q is plugin %s's already: %w", skill, id, store.ErrNoChange)
	}
	if _, ok := tx.Ref(store.SkillRef(skill)); !ok || strings.Contains(skill, ":") {
		return nil, &store.UnknownSkillError{Name: skill}
	}
	name := store.QualifiedName(id, skill)
	if _, taken := tx.Ref(store.SkillRef(name)); taken {
		return nil, fmt.Errorf("link %s to plugin %s: %w", skill, id, &SkillExistsError{Name: name})
	}
	// The managed skill becomes "ID:SKILL", history kept.
	if err := moveSkill(tx, skill, name); err != nil {
		return nil, err
	}
	head, err := tx.Head(name)
	if err != nil {
		return nil, err
	}
	files, err := tx.LoadFiles(head.Tree)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", skill, err)
	}
	var up *Upstream
	var sk *UpstreamSkill
	var base *Base
	if p.Source.Kind == SourceFolder {
		up, sk, base, err = folderBase(tx, p, skill, files)
	} else {
		up, sk, base, err = gitBase(tx, p, skill, head.Tree, files, hint)
	}
	if err != nil {
		return nil, err
	}
	// The first snapshot on the skill's upstream ref, with the trailers
	// sync writes on snapshots (a git source's Source-Commit naming the
	// base commit).
	u := WriteSnapshot(tx, p, up, sk, base.Tree, nil)
	how := "exact"
	if !base.Exact {
		how = fmt.Sprintf("closest: %d file(s), %d line(s) differ", base.Files, base.Distance)
	}
	at := "the folder's current files"
	if !base.Commit.IsZero() {
		at = "upstream " + store.ShortHash(base.Commit)
	}
	v, err := tx.CommitVersion(name, head.Tree, store.VersionInfo{
		Source: p.Label(), Plugin: p.ID, PluginVersion: up.Layout.Version,
		MergeMode: store.MergeModeLink, Risk: head.Risk, Findings: head.Findings, ExtraParents: []store.Hash{u},
		Subject:  fmt.Sprintf("%s v%d: linked to plugin %s at %s (%s)", name, head.Number+1, id, at, how),
		Trailers: []store.Trailer{{Key: store.TrailerMergeBase, Value: u.String()}},
	})
	if err != nil {
		return nil, err
	}
	res := &LinkResult{Plugin: id, Skill: skill, Base: *base, Upstream: u.String(), Version: v.Number, LocalEdit: head.Tree != base.Tree}
	if err := takeLinkedSkill(tx, p, skill, up, res); err != nil {
		return nil, err
	}
	tx.NoteState(fmt.Sprintf("plugin %s: link %s at %s (%s)", id, skill, at, how), store.Trailer{Key: store.TrailerPlugin, Value: id})
	return res, nil
}

// upstreamSkillAt reads plugin p's layout at the fetched commit tip and
// returns it with skill's folder inside the plugin.
func upstreamSkillAt(tx *store.Tx, p *Plugin, tip store.Hash, skill string) (*Upstream, string, error) {
	c, err := tx.Commit(tip)
	if err != nil {
		return nil, "", fmt.Errorf("plugin %s: fetched commit %s: %w", p.ID, store.ShortHash(tip), err)
	}
	dir, ok, err := tx.Subtree(c.Tree, p.Source.Path)
	if err != nil {
		return nil, "", fmt.Errorf("plugin %s: fetched commit %s: %w", p.ID, store.ShortHash(tip), err)
	}
	if !ok {
		return nil, "", fmt.Errorf("plugin %s: fetched commit %s has no folder %s", p.ID, store.ShortHash(tip), p.Source.Path)
	}
	// Through the transaction: a source fetched by it is not stored yet.
	st := objectsOf(tx.Reader)
	tree, err := object.GetTree(st, plumbing.Hash(dir))
	if err != nil {
		return nil, "", fmt.Errorf("plugin %s: fetched commit %s: %w", p.ID, store.ShortHash(tip), err)
	}
	up, err := newPluginUpstream(p, gitfetch.NewTreeFS(st, tree))
	if err != nil {
		return nil, "", err
	}
	var names []string
	for _, d := range up.Layout.Skills {
		if d.Name == skill {
			up.Fetched = gitfetch.Fetched{Commit: tip}
			return up, d.Path, nil
		}
		names = append(names, d.Name)
	}
	return nil, "", fmt.Errorf("plugin %s has no skill %q upstream at %s (its skills: %v)", p.ID, skill, store.ShortHash(tip), names)
}

// gitBase finds the base of a managed skill in plugin p's fetched git
// history (FindBase) and stores its folder's tree, ignored paths dropped.
// A non-zero hint is looked for first, exact only.
func gitBase(tx *store.Tx, p *Plugin, skill string, tree store.Hash, files []store.File, hint baseHint) (*Upstream, *UpstreamSkill, *Base, error) {
	tip, ok := tx.Ref(store.SourceRef(p.ID))
	if !ok {
		return nil, nil, nil, fmt.Errorf("plugin %s was never fetched: run 'skillstore sync %s' first", p.ID, p.ID)
	}
	up, skillPath, err := upstreamSkillAt(tx, p, tip, skill)
	if err != nil {
		return nil, nil, nil, err
	}
	// Cleaned as FindBase cleans it: a skill at the repository's top is
	// "" (path.Join gives "."), which Subtree reads as the top.
	full := strings.Trim(path.Clean("/"+path.Join(p.Source.Path, skillPath)), "/")
	var base *Base
	if !hint.Hash.IsZero() {
		base = hintedBase(tx, tip, full, hint.Hash)
	}
	if base == nil && hint.ContentHash != "" {
		match := func(files []store.File) bool { return npxhash.Sum(files) == hint.ContentHash }
		if b, err := FindBase(tx.Reader, BaseQuery{Tip: tip, Path: full, Match: match}); err == nil && b.Exact {
			base = b
		}
	}
	if base == nil {
		base, err = FindBase(tx.Reader, BaseQuery{Tip: tip, Path: full, Tree: tree, Files: files})
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("plugin %s, skill %s: %w", p.ID, skill, err)
	}
	c, err := tx.Commit(base.Commit)
	if err != nil {
		return nil, nil, nil, err
	}
	raw, _, err := tx.Subtree(c.Tree, full)
	if err != nil {
		return nil, nil, nil, err
	}
	if base.Tree, err = skipIgnored(tx, raw); err != nil {
		return nil, nil, nil, fmt.Errorf("skill %s: upstream %s: %w", skill, store.ShortHash(base.Commit), err)
	}
	up.Fetched = gitfetch.Fetched{Commit: base.Commit}
	return up, &UpstreamSkill{Name: skill, Path: skillPath, Tree: base.Tree}, base, nil
}

// hintedBase is the base a hint names, or nil: a commit (the one an
// installer recorded, such as Claude Code's gitCommitSha) holding the
// skill's folder is the base whatever the installed files are, since they
// were installed from it; a tree (a lock file's skillFolderHash) is looked
// for in the history from tip, exact only.
func hintedBase(tx *store.Tx, tip store.Hash, full string, hint store.Hash) *Base {
	if c, err := tx.Commit(hint); err == nil {
		raw, ok, err := tx.Subtree(c.Tree, full)
		if err != nil || !ok {
			return nil
		}
		if base, err := FindBase(tx.Reader, BaseQuery{Tip: hint, Path: full, Tree: raw, Limit: 1}); err == nil && base.Exact {
			return base
		}
		return nil
	}
	base, err := FindBase(tx.Reader, BaseQuery{Tip: tip, Path: full, Tree: hint})
	if err != nil || !base.Exact {
		return nil
	}
	return base
}

// folderBase is the base of a managed skill linked to a folder source,
// which has no history: the folder's skill as it is now, exact or not.
func folderBase(tx *store.Tx, p *Plugin, skill string, files []store.File) (*Upstream, *UpstreamSkill, *Base, error) {
	up, err := ReadFolder(p.Source, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	sk, ok := up.Skills[skill]
	if !ok {
		return nil, nil, nil, fmt.Errorf("plugin %s has no skill %q upstream (its skills: %v)", p.ID, skill, slices.Sorted(maps.Keys(up.Skills)))
	}
	upFiles, err := LoadUpstreamFiles(tx, sk)
	if err != nil {
		return nil, nil, nil, err
	}
	tree, err := WriteUpstreamTree(tx, sk)
	if err != nil {
		return nil, nil, nil, err
	}
	base := &Base{Tree: tree}
	base.Files, base.Distance = diffDistance(upFiles, files)
	base.Exact = base.Files == 0
	return up, sk, base, nil
}

// takeLinkedSkill records skill as plugin p's own: its selection extended
// if it left the skill out, the skill's managed record cleared.
func takeLinkedSkill(tx *store.Tx, p *Plugin, skill string, up *Upstream, res *LinkResult) error {
	next := *p
	next.Skills = append(slices.Clone(p.Skills), skill)
	next.Adopted = slices.DeleteFunc(slices.Clone(p.Adopted), func(s string) bool { return s == skill })
	next.Removed = slices.DeleteFunc(slices.Clone(p.Removed), func(s string) bool { return s == skill })
	if !p.Selects(skill) {
		var known []string
		for _, d := range up.Layout.Skills {
			known = append(known, d.Name)
		}
		known = append(append(known, p.Skills...), p.Adopted...)
		next.Select = includeSkills(p.Select, skill, known)
		res.SelectChanged = true
	}
	res.Select = nonNil(next.Select)
	name := store.QualifiedName(p.ID, skill)
	rec, err := tx.SkillRecord(name)
	if err != nil {
		return err
	}
	rec.Source, rec.FromPlugin, rec.FromUpstream = "", "", ""
	if err := tx.PutSkillRecord(name, rec); err != nil {
		return err
	}
	return Put(tx, &next)
}
