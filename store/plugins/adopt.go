package plugins

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/merge"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
)

// Taking an installation over (skillstore adopt): skill folders another
// tool installed, with the upstream its lock file names when it names
// one. Everything happens in one transaction, so a dry run (DryRun) sees
// the plugin it would add when it links a skill to it, and reports what
// the real run would do.

// InstalledSkill is one skill folder to take over.
type InstalledSkill struct {
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
	Hint store.Hash
	// SkillPath is the skill's folder (or its SKILL.md) inside the
	// upstream repository, as the installer recorded it (a lock file's
	// skillPath): it picks the plugin of a source holding several. ""
	// when unknown.
	SkillPath string
	// Name is the skill's name as the installer recorded it (the lock
	// file's key); "" means the folder's name.
	Name string
	// ContentHash is a project lock's computedHash (npx skills' digest of
	// the folder's files, internal/npxhash): the upstream commit whose
	// folder has that digest is the exact base, even when the installed
	// copy was edited since.
	ContentHash string
	// Restore, when set, takes out of the installed files (with content)
	// what the installer added to upstream's, before they are compared
	// or recorded (gh skill's provenance keys in SKILL.md); r reads the
	// fetched upstream objects.
	Restore func(r *store.Reader, files []store.File) []store.File
}

// hint is what the installer recorded of the upstream version.
func (sk InstalledSkill) hint() baseHint {
	return baseHint{Hash: sk.Hint, ContentHash: sk.ContentHash}
}

// addOptions are opts with the skill's Restore, reading through r.
func (sk InstalledSkill) addOptions(opts store.AddOptions, r *store.Reader) store.AddOptions {
	if sk.Restore != nil {
		opts.Rewrite = func(files []store.File) []store.File { return sk.Restore(r, files) }
	}
	return opts
}

// name is the skill's name as installed.
func (sk InstalledSkill) name() string {
	if sk.Name != "" {
		return sk.Name
	}
	return filepath.Base(sk.Dir)
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
	Linked bool `json:"linked_already,omitempty"`
	// Installed is, for a skill the plugin had already with other files
	// than the installed ones, the upstream commit they came from; Edit
	// is what became of the installed copy's edits on top of it (nil:
	// none, the copy is that older upstream version).
	Installed *Base      `json:"installed,omitempty"`
	Edit      *AdoptEdit `json:"edit,omitempty"`
	Err       error      `json:"-"`
	Error     string     `json:"error,omitempty"`
}

// AdoptEdit is an installed copy's local edit merged with the version the
// store publishes (see [candidates.MergeLocalEdit]).
type AdoptEdit struct {
	Outcome   candidates.LocalMergeOutcome `json:"outcome"`
	Candidate string                       `json:"candidate,omitempty"`
	Conflicts []string                     `json:"conflicts,omitempty"`
	// OnVersion is the published version the candidate merges with.
	OnVersion int `json:"on_version"`
}

// Adopt imports each folder as a managed skill (unless the store holds
// those files already) and links the ones with an upstream to a plugin of
// that source: an existing plugin with the same source, else one added
// for it, with nothing selected until the link selects the skill. A
// failing entry carries Err; the others are still taken over.
func Adopt(ctx context.Context, s *store.Store, skills []InstalledSkill, opts store.AddOptions) ([]AdoptResult, error) {
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
	pre := Prefetch(ctx, s, reqs, nil)
	defer pre.Close()
	var out []AdoptResult
	// An edit merged with the published version is merged with no lock
	// held when it is large (candidates.WriteAhead).
	err := candidates.WriteAhead(ctx, s, func(ahead *merge.Ahead) error {
		return s.Update(ctx, func(tx *store.Tx) error {
			out = out[:0]
			for _, sk := range skills {
				r := adoptOne(ctx, tx, pre, sk, opts, ahead)
				if r.Err != nil {
					r.Error = r.Err.Error()
				}
				out = append(out, r)
			}
			return ahead.Err()
		})
	})
	return out, err
}

func adoptOne(ctx context.Context, tx *store.Tx, pre *Prefetched, sk InstalledSkill, opts store.AddOptions, ahead *merge.Ahead) AdoptResult {
	r := AdoptResult{Dir: sk.Dir}
	if sk.Upstream.URL != "" {
		// A source the policy refuses refuses the skill: taking it in as
		// a managed skill would take in what the policy keeps out.
		if r.Err = CheckSource(tx.Store(), sk.Upstream, ""); r.Err != nil {
			return r
		}
		// Restore compares with upstream's files: the fetched objects,
		// queued in the transaction before the folder is read.
		if sk.Restore != nil && sk.Upstream.Kind == SourceGit {
			if _, r.Err = Fetch(ctx, tx, pre, sk.Upstream, store.ZeroHash); r.Err != nil {
				return r
			}
		}
		// A plugin of that repository that mirrors the skill already.
		pl, err := findAdoptPlugin(tx, sk, sk.name())
		if err != nil {
			r.Err = err
			return r
		}
		if pl != nil && pl.Owns(sk.name()) {
			return adoptOwned(ctx, tx, sk, pl, opts, ahead)
		}
	}
	preps, err := tx.Prepare(ctx, []string{sk.Dir}, sk.addOptions(opts, tx.Reader))
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
	if plugin, _ := store.SplitName(p.Name); plugin != "" {
		// The folder holds a version of that plugin's skill (see
		// chooseAddName): adopted already when it is the latest.
		r.Plugin, r.Linked = plugin, true
		if !p.Unchanged {
			r.Err = fmt.Errorf("skill %s is plugin %s's already, with the files of an older version in %s: take them in with 'skillstore add --into %s %s'", p.Name, plugin, sk.Dir, p.Name, sk.Dir)
		}
		return r
	}
	if sk.Upstream.URL != "" && !p.Unchanged {
		// The folder goes through the managed name on its way to the
		// plugin: a managed skill already there with other files (written
		// by hand, or from another source) must not get them as a version.
		if _, taken := tx.Ref(store.SkillRef(p.Name)); taken {
			r.Err = fmt.Errorf("the managed skill %s holds other files than %s, which comes from %s: not taken over; to keep both, run 'skillstore plugin add %s --skill %s', then 'skillstore add --as PLUGIN:%s %s'", p.Name, sk.Dir, sk.Upstream, sk.Upstream, p.Name, p.Name, sk.Dir)
			return r
		}
	}
	if !p.Unchanged {
		rec, err := tx.RecordPrepared([]store.Prepared{p}, opts)
		if err != nil {
			r.Err = err
			return r
		}
		r.Imported = rec[0].Version.Number
	}
	if sk.Upstream.URL == "" {
		return r
	}
	id, added, err := pluginForSkill(ctx, tx, pre, sk, p.Name)
	if err != nil {
		r.Err = err
		return r
	}
	r.Plugin, r.PluginAdded = id, added
	link, err := linkSkill(tx, id, p.Name, sk.hint())
	if errors.Is(err, store.ErrNoChange) {
		r.Linked = true
		return r
	}
	r.Link, r.Err = link, err
	return r
}

// adoptOwned takes over an installed copy of a skill plugin pl mirrors
// already. The same files as the published version need nothing; other
// files are looked up in the plugin's upstream history (the installer's
// hint first): an older upstream version needs nothing either (export
// replaces it), and one edited on top of it is a local edit, merged with
// the published version into a candidate (MergeLocalEdit), so that no
// edit is lost and no upstream change undone.
func adoptOwned(ctx context.Context, tx *store.Tx, sk InstalledSkill, pl *Plugin, opts store.AddOptions, ahead *merge.Ahead) AdoptResult {
	name := store.QualifiedName(pl.ID, sk.name())
	r := AdoptResult{Dir: sk.Dir, Name: name, Plugin: pl.ID, Linked: true}
	into := sk.addOptions(opts, tx.Reader)
	into.Into, into.As = []string{name}, ""
	preps, err := tx.Prepare(ctx, []string{sk.Dir}, into)
	if err == nil {
		err = preps[0].Err
	}
	if err != nil || preps[0].Unchanged {
		r.Err = err
		return r
	}
	files, err := preps[0].Files(tx.Reader)
	if err != nil {
		r.Err = fmt.Errorf("%s: %w", sk.Dir, err)
		return r
	}
	tree, err := store.TreeHash(skillfs.WithoutIgnored(files))
	if err != nil {
		r.Err = fmt.Errorf("%s: %w", sk.Dir, err)
		return r
	}
	_, _, base, err := gitBase(tx, pl, sk.name(), tree, files, sk.hint())
	if err != nil {
		r.Err = fmt.Errorf("skill %s is plugin %s's already, and the files in %s are no upstream version of it (%w): to record them as its next version, 'skillstore add --into %s %s'", name, pl.ID, sk.Dir, err, name, sk.Dir)
		return r
	}
	r.Installed = base
	if tree == base.Tree {
		return r // an older upstream version: export replaces it
	}
	lm, err := candidates.MergeLocalEdit(tx, candidates.LocalEdit{Skill: name, Where: sk.Dir, Base: base.Tree, Files: files, Reason: opts.Reason, Ahead: ahead})
	if err != nil {
		r.Err = err
		return r
	}
	r.Edit = &AdoptEdit{Outcome: lm.Outcome, Conflicts: lm.Conflicts, OnVersion: lm.Head.Number}
	if !lm.Candidate.IsZero() {
		r.Edit.Candidate = lm.Candidate.String()
	}
	return r
}
