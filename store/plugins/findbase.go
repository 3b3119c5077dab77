package plugins

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/treediff"
)

// A skill installed long ago by another tool, or imported by hand, holds
// an upstream's files but no record of which upstream commit they are.
// FindBase answers that from the upstream's own history: the commit whose
// skill folder equals the installed one, or failing that the one closest
// to it, so that linking the skill to its plugin takes that commit as the
// merge base and what differs from it as a local edit on top.

// DefaultBaseSearchLimit bounds how many upstream commits FindBase reads.
const DefaultBaseSearchLimit = 1000

// ErrNoBase is wrapped by FindBase when no commit it read holds the skill.
var ErrNoBase = errors.New("no upstream commit holds the skill")

// BaseQuery is what FindBase looks for.
type BaseQuery struct {
	// Tip is the upstream commit the search starts from (a plugin's
	// fetched source commit); the walk follows first parents.
	Tip store.Hash
	// Path is the skill's folder inside the upstream commits' trees
	// ("" for a skill at the repository root).
	Path string
	// Tree is the tree id of the skill folder to find: a stored tree, or a
	// lock file's skillFolderHash (the folder's git tree id at install),
	// which may name a tree the store lacks. Either Tree or Files is needed.
	Tree store.Hash
	// Files is the skill's content (with Data), for the closest match when
	// no commit is exact. Empty: read from Tree when the store has it;
	// without either only an exact match is found.
	Files []store.File
	// Limit bounds the commits read (0: DefaultBaseSearchLimit).
	Limit int
	// Match, when set, is another installer's record of the folder it
	// installed that is no git tree id (npx skills' computedHash): it is
	// given the files of each distinct folder the walk meets, and a
	// folder it reports is an exact base.
	Match func(files []store.File) bool
}

// Base is the upstream commit FindBase chose.
type Base struct {
	// Commit is the upstream commit; Tree the skill folder's tree in it,
	// without the paths skillfs.Ignored drops (as sync snapshots it).
	Commit store.Hash `json:"commit"`
	Tree   store.Hash `json:"tree"`
	// Exact reports that the skill folder equals the commit's.
	Exact bool `json:"exact"`
	// Files counts the files that differ from the commit's skill folder,
	// Distance the lines they add and delete (a differing binary file or
	// mode counts one): zero when Exact.
	Files    int `json:"files"`
	Distance int `json:"distance"`
	// Walked is how many commits were read; Truncated reports that the
	// history went on past Limit.
	Walked    int  `json:"walked"`
	Truncated bool `json:"truncated,omitempty"`
}

// FindBase searches the upstream history from q.Tip, following first
// parents for at most q.Limit commits, for the commit whose folder at
// q.Path equals the skill (q.Tree, or the tree of q.Files): the newest
// such commit is an exact base. The walk compares tree ids only; the files
// of each distinct folder are read after it, when no id matched: a folder
// equal to the skill once ignored paths are dropped is exact too, else the
// commit whose folder differs in the fewest lines (then files; then the
// newest) is returned with Exact false. Commits without the folder are
// passed over; when none has it the error wraps ErrNoBase.
func FindBase(r *store.Reader, q BaseQuery) (*Base, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultBaseSearchLimit
	}
	want := map[store.Hash]bool{}
	if !q.Tree.IsZero() {
		want[q.Tree] = true
	}
	files := q.Files
	if len(files) > 0 {
		h, err := store.TreeHash(skillfs.WithoutIgnored(files))
		if err != nil {
			return nil, fmt.Errorf("find base: the skill's files: %w", err)
		}
		want[h] = true
	} else if !q.Tree.IsZero() && r.HasObject(q.Tree) {
		loaded, err := r.LoadFiles(q.Tree)
		if err != nil {
			return nil, fmt.Errorf("find base: tree %s: %w", store.ShortHash(q.Tree), err)
		}
		files = loaded
	}
	if len(want) == 0 && q.Match == nil {
		return nil, errors.New("find base: neither a tree id nor files to look for")
	}
	files = skillfs.WithoutIgnored(files)
	dir := strings.Trim(path.Clean("/"+q.Path), "/")

	// First the walk, comparing tree ids only: an exact match ends it.
	type folderAt struct{ commit, raw store.Hash }
	var folders []folderAt
	matches := map[store.Hash]bool{} // q.Match's answer per folder tree
	walked := 0
	h := q.Tip
	for !h.IsZero() && walked < limit {
		walked++
		c, err := r.Commit(h)
		if err != nil {
			return nil, fmt.Errorf("find base: upstream commit %s: %w", store.ShortHash(h), err)
		}
		raw, ok, err := r.Subtree(c.Tree, dir)
		if err != nil {
			return nil, fmt.Errorf("find base: upstream commit %s: %w", store.ShortHash(h), err)
		}
		if ok && want[raw] {
			return exactBase(r, h, raw, walked)
		}
		if ok && q.Match != nil {
			matched, seen := matches[raw]
			if !seen {
				loaded, err := r.LoadFiles(raw)
				if err != nil {
					return nil, fmt.Errorf("find base: upstream commit %s: %w", store.ShortHash(h), err)
				}
				matched = q.Match(loaded)
				matches[raw] = matched
			}
			if matched {
				return exactBase(r, h, raw, walked)
			}
		}
		if ok {
			folders = append(folders, folderAt{h, raw})
		}
		h = store.ZeroHash
		if len(c.Parents) > 0 {
			h = c.Parents[0]
		}
	}
	truncated := !h.IsZero()
	notFound := fmt.Errorf("find base: %s in the %d commit(s) read from %s: %w", orRoot(dir), walked, store.ShortHash(q.Tip), ErrNoBase)
	if len(files) == 0 {
		return nil, notFound // only a tree id to go by: only an exact match counts
	}
	// Then the files of each distinct folder, newest first: equal once
	// ignored paths are dropped is exact too, else the fewest lines differ.
	var best *Base
	scored := map[store.Hash]*Base{}
	for _, f := range folders {
		s, seen := scored[f.raw]
		if !seen {
			var err error
			if s, err = scoreBase(r, f.raw, files); err != nil {
				return nil, fmt.Errorf("find base: upstream commit %s: %w", store.ShortHash(f.commit), err)
			}
			scored[f.raw] = s
		}
		if s.Exact {
			return exactBase(r, f.commit, f.raw, walked)
		}
		if best == nil || s.Distance < best.Distance || s.Distance == best.Distance && s.Files < best.Files {
			best = &Base{Commit: f.commit, Tree: s.Tree, Files: s.Files, Distance: s.Distance}
		}
	}
	if best == nil {
		return nil, notFound
	}
	best.Walked, best.Truncated = walked, truncated
	return best, nil
}

// exactBase is the Base for commit h whose folder at the skill's path is
// the tree raw.
func exactBase(r *store.Reader, h, raw store.Hash, walked int) (*Base, error) {
	tree, err := withoutIgnored(r, raw)
	if err != nil {
		return nil, err
	}
	return &Base{Commit: h, Tree: tree, Exact: true, Walked: walked}, nil
}

// scoreBase compares an upstream skill folder with the skill's files:
// Exact when equal once ignored paths are dropped.
func scoreBase(r *store.Reader, raw store.Hash, files []store.File) (*Base, error) {
	loaded, err := r.LoadFiles(raw)
	if err != nil {
		return nil, err
	}
	up := skillfs.WithoutIgnored(loaded)
	tree, err := store.TreeHash(up)
	if err != nil {
		return nil, err
	}
	if mine, err := store.TreeHash(files); err == nil && mine == tree {
		return &Base{Tree: tree, Exact: true}, nil
	}
	b := &Base{Tree: tree}
	b.Files, b.Distance = diffDistance(up, files)
	return b, nil
}

// diffDistance counts the files that differ between two file sets (with
// Data) and the lines those add and delete; a binary, renamed or
// mode-only change counts one line more.
func diffDistance(old, new []store.File) (files, lines int) {
	changes := treediff.Files(old, new)
	for i, st := range treediff.Stats(changes) {
		files++
		n := st.Insertions + st.Deletions
		if n == 0 || changes[i].ModeChanged() {
			n++
		}
		lines += n
	}
	return files, lines
}

// withoutIgnored is tree without the paths skillfs.Ignored drops, its id
// computed, nothing written (a Reader cannot write).
func withoutIgnored(r *store.Reader, tree store.Hash) (store.Hash, error) {
	files, err := r.Files(tree)
	if err != nil {
		return store.ZeroHash, err
	}
	kept := skillfs.WithoutIgnored(files)
	if len(kept) == len(files) {
		return tree, nil
	}
	return store.TreeHash(kept)
}

func orRoot(dir string) string {
	if dir == "" {
		return "the repository root"
	}
	return dir + "/"
}
