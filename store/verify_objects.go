package store

import (
	"context"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// How verify reads objects, at git fsck's pace: each object once,
// however many refs reach it (the plugins of one marketplace share its
// repository's commit; versions and upstream snapshots share their trees;
// a source's tree holds its plugins' skill folders); each tree read and
// checked once, then walked from memory; and the refs checked by one
// reader per core. A plugin's refs (its skills, upstream snapshots and
// candidates, which share most objects) go to one reader, and the
// plugins' sources are checked after every other ref (verifyRefs). What
// passed is shared between the readers (verifyShared); what failed is
// not, so each reader meets a bad object itself and names it under its
// own ref. The readers take their shares in a fixed order, so the
// problems found, and the refs they are named under, are the same from
// run to run. The report lists problems and warnings in ref order.

// verifyShared is what the readers of one verify found sound, each object
// once: trees with their entries (every subtree sound too), blobs, and
// commits that reach a sound tree of sound blobs (commitRef's check).
type verifyShared struct {
	mu      sync.Mutex
	trees   map[Hash][]skillfs.TreeEntry
	blobs   map[Hash]bool
	commits map[Hash]bool
}

func newVerifyShared() *verifyShared {
	return &verifyShared{trees: map[Hash][]skillfs.TreeEntry{}, blobs: map[Hash]bool{}, commits: map[Hash]bool{}}
}

func (sh *verifyShared) tree(h Hash) ([]skillfs.TreeEntry, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e, ok := sh.trees[h]
	return e, ok
}

func (sh *verifyShared) putTree(h Hash, entries []skillfs.TreeEntry) {
	sh.mu.Lock()
	sh.trees[h] = entries
	sh.mu.Unlock()
}

// has reports whether h is in set (sh.blobs or sh.commits).
func (sh *verifyShared) has(set map[Hash]bool, h Hash) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return set[h]
}

// put adds h to set (sh.blobs or sh.commits).
func (sh *verifyShared) put(set map[Hash]bool, h Hash) {
	sh.mu.Lock()
	set[h] = true
	sh.mu.Unlock()
}

// seqProblem is a problem or warning with its place: the index of the ref
// being checked, then the order it was met in.
type seqProblem struct {
	ref, seq int
	VerifyProblem
}

// verifyRefs checks every ref of refs, adding what it finds to rep: the
// plugins' sources after every other ref, so that a source's trees and
// blobs that its plugins' versions hold were checked (or found bad) by
// then, and each SKILL.md is read by the reader that checks its version.
func (s *Store) verifyRefs(ctx context.Context, refs gitdb.Refs, opts VerifyOptions, rep *VerifyReport) error {
	names := refs.Names("")
	var first, sources []int
	for i, name := range names {
		if strings.HasPrefix(name, SourceRefPrefix) {
			sources = append(sources, i)
		} else {
			first = append(first, i)
		}
	}
	shared := newVerifyShared()
	readers := min(runtime.GOMAXPROCS(0), 8)
	var vs []*verifier
	for _, phase := range [][]int{first, sources} {
		done, err := s.verifyShares(ctx, refs, names, shareRefs(refs, names, phase, readers), shared, opts.Quick)
		if err != nil {
			return err
		}
		vs = append(vs, done...)
	}
	var problems, warnings []seqProblem
	for _, v := range vs {
		rep.Skills += v.rep.Skills
		rep.Versions += v.rep.Versions
		rep.PluginParts += v.rep.PluginParts
		rep.PartsVersions += v.rep.PartsVersions
		rep.ObjectsRead += v.rep.ObjectsRead
		problems = append(problems, v.problems...)
		warnings = append(warnings, v.warnings...)
	}
	rep.Problems = append(rep.Problems, inOrder(problems)...)
	rep.Warnings = append(rep.Warnings, inOrder(warnings)...)
	return nil
}

// verifyShares checks the refs of each share (indexes into names) with a
// reader of its own, the shares at once, and returns the readers.
func (s *Store) verifyShares(ctx context.Context, refs gitdb.Refs, names []string, shares [][]int, shared *verifyShared, quick bool) ([]*verifier, error) {
	vs := make([]*verifier, len(shares))
	errs := make([]error, len(shares))
	var wg sync.WaitGroup
	for w, share := range shares {
		v := s.newVerifier(refs, shared, quick)
		vs[w] = v
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer v.r.resetStorage()
			for _, i := range share {
				if errs[w] = ctx.Err(); errs[w] != nil {
					return
				}
				v.ref = i
				v.verifyRef(names[i], refs[names[i]])
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// newVerifier is a verifier with a reader of its own.
func (s *Store) newVerifier(refs gitdb.Refs, shared *verifyShared, quick bool) *verifier {
	r := &Reader{s: s, refs: gitdb.NewRefReaderOf(s.dir, refs), db: gitdb.Open(s.dir)}
	return &verifier{r: r, rep: &VerifyReport{}, shared: shared, seen: map[Hash]bool{}, treesChecked: map[Hash]bool{},
		treeOK: map[Hash]bool{}, blobs: map[Hash]bool{}, commits: map[Hash]bool{}, quick: quick}
}

// shareRefs splits indexes (into names, sorted) into at most n shares of
// whole groups (refGroup), group k to share k mod n.
func shareRefs(refs gitdb.Refs, names []string, indexes []int, n int) [][]int {
	n = max(n, 1)
	group := map[string]int{}
	shares := make([][]int, n)
	for _, i := range indexes {
		name := names[i]
		key := refGroup(name, refs[name])
		k, ok := group[key]
		if !ok {
			k = len(group)
			group[key] = k
		}
		shares[k%n] = append(shares[k%n], i)
	}
	for len(shares) > 0 && len(shares[len(shares)-1]) == 0 {
		shares = shares[:len(shares)-1]
	}
	return shares
}

// refGroup is what a ref shares most of its objects with: its commit for
// a plugin's source (the plugins of a marketplace share its repository's),
// the plugin for a plugin's other refs, the skill for a managed skill's,
// else the ref alone.
func refGroup(name string, h Hash) string {
	if strings.HasPrefix(name, SourceRefPrefix) {
		return "commit " + h.String()
	}
	for _, prefix := range []string{PluginRefPrefix, UpstreamRefPrefix, PluginCandidateRefPrefix} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			plugin, _, _ := strings.Cut(rest, "/")
			return "plugin " + plugin
		}
	}
	for _, prefix := range []string{SkillRefPrefix, ManagedCandidateRefPrefix} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			return "skill " + rest
		}
	}
	return name
}

// inOrder is the problems in ref order, then in the order met.
func inOrder(ps []seqProblem) []VerifyProblem {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].ref != ps[j].ref {
			return ps[i].ref < ps[j].ref
		}
		return ps[i].seq < ps[j].seq
	})
	out := make([]VerifyProblem, len(ps))
	for i, p := range ps {
		out[i] = p.VerifyProblem
	}
	return out
}

// note records a problem at the walk's next place.
func (v *verifier) note(p VerifyProblem) {
	v.seq++
	v.problems = append(v.problems, seqProblem{v.ref, v.seq, p})
}

// warn records a warning at the walk's next place.
func (v *verifier) warn(p VerifyProblem) {
	v.seq++
	v.warnings = append(v.warnings, seqProblem{v.ref, v.seq, p})
}

// treeEntries returns a tree's entries, read and checked by trees once.
func (v *verifier) treeEntries(where string, tree Hash) ([]skillfs.TreeEntry, bool) {
	if !v.trees(where, tree) {
		return nil, false
	}
	entries, _ := v.shared.tree(tree)
	return entries, true
}

// files lists the files of a checked tree (as Reader.Files does) from the
// trees read by trees; ok is false when a tree failed (a problem is
// recorded). A version's tree is bounded as every tree a store takes in
// (skillfs.MaxDepth: a path past a bound is a problem); with any, a tree
// kept as it came (a plugin source's commit) is listed whole, the paths
// of files past a bound cut at it (they only name the file in messages).
func (v *verifier) files(where string, tree Hash, any bool) ([]File, bool) {
	var out []File
	var walk func(h Hash, dir string, depth int, cut bool) bool
	walk = func(h Hash, dir string, depth int, cut bool) bool {
		entries, ok := v.treeEntries(where, h)
		if !ok {
			return false
		}
		for _, e := range entries {
			p, deeper := dir, cut
			if !cut {
				var err error
				if p, err = skillfs.ChildPath(dir, e.Name, depth); err != nil {
					if !any {
						v.problem(where, "%v", err)
						return false
					}
					p, deeper = dir+"/…", true
				}
			}
			if e.Mode == skillfs.Dir {
				if !walk(e.ID, p, depth+1, deeper) {
					return false
				}
				continue
			}
			out = append(out, File{Path: p, Mode: e.Mode, ID: e.ID})
		}
		return true
	}
	if !walk(tree, "", 1, false) {
		return nil, false
	}
	sortFiles(out)
	return out, true
}

// checkBlob checks a blob of where at path, once: with quick that it is
// stored, else that it reads and hashes to its id.
func (v *verifier) checkBlob(where, file string, h Hash) {
	if v.blobs[h] {
		return
	}
	v.blobs[h] = true
	if v.shared.has(v.shared.blobs, h) {
		return
	}
	if v.quick {
		if !v.r.hasStored(h) {
			v.problem(where, "%s: blob %s is missing", file, ShortHash(h))
			return
		}
	} else if _, err := v.counted().object(h); err != nil {
		v.problem(where, "%s: %v", file, err)
		return
	}
	v.shared.put(v.shared.blobs, h)
}
