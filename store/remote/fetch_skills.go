package remote

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/safety"
)

// A project's lock file names a team remote for the versions only stores
// have (a managed skill, a local edit of a plugin's skill). The lock is a
// request from whoever wrote the file, not an order: the remote is not
// recorded, nothing is pulled, and no published skill of this store
// moves. [FetchSkills] asks the remote for the published refs of the
// skills the lock names, and for nothing else; [SkillsFetch.Take] checks
// each one's history with pull's safety checks and keeps the version the
// lock pins under store.LockedRef, for the project's targets alone.

// ErrNotOnRemote is wrapped by Take when the remote has no version of the
// skill with the tree asked for (or no such skill).
var ErrNotOnRemote = errors.New("not on the remote")

// SkillsFetch is what FetchSkills brought: each asked skill's published
// head on the remote, and the objects of their histories this store
// lacked, in memory (nothing is written until Take queues them).
type SkillsFetch struct {
	Name string // the remote's name in messages
	URL  string
	// heads are the remote's published heads of the skills asked that it
	// has.
	heads map[string]store.Hash
	objs  map[store.Hash]gitdb.Object
}

// FetchSkills connects to the git repository at url (named name in
// messages; no remote of the store needs to have it) and fetches the
// published history of each of skills there, and nothing else: the other
// refs the repository advertises are neither checked nor fetched. The
// source policy decides first whether url may be read, as for a pull
// (plugins.CheckSource). It holds no store lock, writes nothing and
// records no remote; every network wait has the store's fetch deadlines,
// and credentials come from where git keeps them, as for pull.
func FetchSkills(ctx context.Context, s *store.Store, name, url string, skills []string) (*SkillsFetch, error) {
	f := &SkillsFetch{Name: name, URL: url, heads: map[string]store.Hash{}, objs: map[store.Hash]gitdb.Object{}}
	if err := plugins.CheckSource(s, plugins.Source{Kind: plugins.SourceGit, URL: url}, ""); err != nil {
		return nil, fmt.Errorf("fetch from %s: %w", name, err)
	}
	conn, err := dialRemote(Remote{Name: name, URL: url}, s.FetchOptions())
	if err != nil {
		return nil, err
	}
	sess, err := conn.openFetch(ctx)
	if err != nil || sess == nil {
		return f, err // nil, nil: an empty repository has none of them
	}
	defer sess.Close()
	adv := advertisedRefs(sess.Refs())
	var wants []skillfs.ID
	for _, skill := range skills {
		if h, ok := adv[store.SkillRef(skill)]; ok {
			f.heads[skill] = h
			wants = append(wants, h)
		}
	}
	if len(wants) == 0 {
		return f, nil
	}
	sort.Slice(wants, func(i, j int) bool { return wants[i].String() < wants[j].String() })
	base := gitfetch.NewSharedBase(s.Dir(), filesystem.NewStorageWithOptions(osfs.New(s.Dir()), cache.NewObjectLRU(16<<20), filesystem.Options{}))
	defer base.Close()
	fetched, err := gitfetch.FetchCommits(sess, base, wants)
	if err != nil {
		return nil, conn.wrap("fetch from", err)
	}
	err = fetched.NewObjects(func(t gitdb.ObjectType, data []byte) {
		f.objs[gitdb.HashObject(t, data)] = gitdb.Object{Type: t, Data: data}
	})
	if err != nil {
		return nil, conn.wrap("fetch from", err)
	}
	return f, nil
}

// Take finds, down the first parents of the remote's published history
// of skill, the version whose tree is tree; checks that version and every
// one below it with the safety checks a pull runs (the history's shape,
// version trailers counting down to v1, SKILL.md, the content check with
// allow as the highest risk taken); and queues in tx the objects of that
// history this store lacks, and store.LockedRef(skill) at the version. No
// published ref moves. Versions newer than the one asked are neither
// checked nor kept. A skill the remote does not have, or has no version
// of with that tree, is an error wrapping ErrNotOnRemote.
func (f *SkillsFetch) Take(tx *store.Tx, skill string, tree store.Hash, allow safety.RiskLevel) (store.Version, error) {
	head, ok := f.heads[skill]
	if !ok {
		return store.Version{}, fmt.Errorf("%s has no skill %s: %w", f.Name, skill, ErrNotOnRemote)
	}
	if allow == safety.RiskNone {
		allow = safety.DefaultAllowedRisk
	}
	check := newHistoryCheck(tx, allow)
	defer check.close()
	check.fetched = f.objs
	at, err := f.versionWithTree(check.packedReader, head, tree)
	if err != nil {
		return store.Version{}, fmt.Errorf("%s's history of %s: %w", f.Name, skill, err)
	}
	if at.IsZero() {
		return store.Version{}, fmt.Errorf("no version of %s on %s has the tree %s: %w", skill, f.Name, tree.String()[:12], ErrNotOnRemote)
	}
	ref := store.SkillRef(skill)
	check.history(ref, at)
	local, _ := tx.Ref(ref)
	check.skillVersions(skill, at, local)
	if err := check.err(f.Name); err != nil {
		return store.Version{}, err
	}
	if err := f.queue(tx, at); err != nil {
		return store.Version{}, err
	}
	tx.SetRef(store.LockedRef(skill), at)
	return tx.VersionAt(skill, at)
}

// versionWithTree walks the first parents from head for the commit whose
// tree is tree (zero when none is).
func (f *SkillsFetch) versionWithTree(r *packedReader, head, tree store.Hash) (store.Hash, error) {
	seen := map[store.Hash]bool{}
	for h := head; !h.IsZero() && !seen[h]; {
		seen[h] = true
		c, err := r.commit(h)
		if err != nil {
			return store.ZeroHash, err
		}
		if c.Tree == tree {
			return h, nil
		}
		h = store.ZeroHash
		if len(c.Parents) > 0 {
			h = c.Parents[0]
		}
	}
	return store.ZeroHash, nil
}

// queue writes into tx every object reachable from commit that the store
// does not hold: only those of the history kept, never the rest of what
// the remote sent.
func (f *SkillsFetch) queue(tx *store.Tx, commit store.Hash) error {
	stack := []store.Hash{commit}
	seen := map[store.Hash]bool{}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] || tx.HasObject(h) {
			continue
		}
		seen[h] = true
		o, ok := f.objs[h]
		if !ok {
			return fmt.Errorf("fetch from %s: the remote did not send %s", f.Name, h)
		}
		tx.WriteObject(o.Type, o.Data)
		switch o.Type {
		case gitdb.CommitObject:
			c, err := gitdb.ParseCommit(h, o.Data)
			if err != nil {
				return fmt.Errorf("fetch from %s: commit %s: %w", f.Name, short(h), err)
			}
			stack = append(append(stack, c.Tree), c.Parents...)
		case gitdb.TreeObject:
			entries, err := skillfs.ParseTree(o.Data)
			if err != nil {
				return fmt.Errorf("fetch from %s: tree %s: %w", f.Name, short(h), err)
			}
			for _, e := range entries {
				if e.Mode != skillfs.Gitlink {
					stack = append(stack, e.ID)
				}
			}
		}
	}
	return nil
}
