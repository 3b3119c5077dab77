package store

import (
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// DefaultGCGrace is how old an unreachable object must be before gc
// deletes it (git's default prune expiry is two weeks; a store's
// unreachable objects come from crashed writers and purges, so one day).
const DefaultGCGrace = 24 * time.Hour

// GCResult says what gc did.
type GCResult struct {
	Objects      int   `json:"objects"`
	Deltas       int   `json:"deltas"`
	PackBytes    int64 `json:"pack_bytes"`
	LooseRemoved int   `json:"loose_removed"`
	PacksRemoved int   `json:"packs_removed"`
	Pruned       int   `json:"pruned"`
	Kept         int   `json:"kept_recent_unreachable"`
	Refs         int   `json:"refs_packed"`
}

// gc delta settings, close to git gc --aggressive: long chains, and a
// delta only when it is clearly smaller than the object.
const (
	gcMaxDepth = 50
	gcWindow   = 4
)

// GC packs every reachable object into one delta-compressed pack, packs the
// refs, and deletes loose objects and old packs. Unreachable objects younger
// than grace are kept (as loose objects, with their original time), older
// ones are deleted. It holds the write lock throughout, so no writer has
// objects in flight.
func (s *Store) GC(ctx context.Context, grace time.Duration) (GCResult, error) {
	var res GCResult
	err := s.Update(ctx, func(tx *Tx) error {
		var err error
		res, err = tx.gc(ctx, grace)
		return err
	})
	return res, err
}

type gcObject struct {
	hash  Hash
	typ   gitdb.ObjectType
	data  []byte
	group string
}

func (tx *Tx) gc(ctx context.Context, grace time.Duration) (GCResult, error) {
	var res GCResult
	now := time.Now()
	objs, err := tx.reachable(ctx)
	if err != nil {
		return res, err
	}
	reachable := make(map[Hash]bool, len(objs))
	for _, o := range objs {
		reachable[o.hash] = true
	}

	// Inventory what is stored before writing anything.
	loose, err := gitdb.ListLoose(tx.s.dir)
	if err != nil {
		return res, err
	}
	packs, err := gitdb.ListPacks(tx.s.dir)
	if err != nil {
		return res, err
	}

	// Unreachable objects in packs younger than grace survive as loose
	// objects carrying the pack's time, so the next gc can expire them.
	for _, p := range packs {
		if now.Sub(p.ModTime) >= grace {
			continue
		}
		for _, h := range p.Objects {
			if reachable[h] {
				continue
			}
			if _, isLoose := loose[h]; isLoose {
				continue
			}
			o, err := tx.object(h)
			if err != nil {
				return res, err
			}
			dir, err := gitdb.WriteLoose(tx.s.dir, h, o.Type, o.Data)
			if err != nil {
				return res, err
			}
			if err := os.Chtimes(filepath.Join(dir, h.String()[2:]), p.ModTime, p.ModTime); err != nil {
				return res, err
			}
			loose[h] = p.ModTime
		}
	}

	packObjs, deltas := deltify(objs)
	res.Objects, res.Deltas = len(packObjs), deltas
	var newPack Hash
	if len(packObjs) > 0 {
		if newPack, err = gitdb.WritePack(tx.s.dir, packObjs, zlib.BestCompression); err != nil {
			return res, err
		}
		if info, err := os.Stat(filepath.Join(tx.s.dir, "objects", "pack", "pack-"+newPack.String()+".pack")); err == nil {
			res.PackBytes = info.Size()
		}
	}
	refs, err := gitdb.ReadRefs(tx.s.dir)
	if err != nil {
		return res, err
	}
	if err := gitdb.PackAllRefs(tx.s.dir); err != nil {
		return res, err
	}
	res.Refs = len(refs)

	// Everything reachable is now in the new pack: delete the rest.
	for _, p := range packs {
		if p.ID == newPack {
			continue
		}
		for _, ext := range []string{".pack", ".idx", ".rev", ".bitmap", ".keep"} {
			if err := os.Remove(p.Base + ext); err == nil && ext == ".pack" {
				res.PacksRemoved++
			}
		}
	}
	for h, mtime := range loose {
		switch {
		case reachable[h]:
			res.LooseRemoved++
		case now.Sub(mtime) >= grace:
			res.Pruned++
		default:
			res.Kept++
			continue
		}
		if err := os.Remove(gitdb.LoosePath(tx.s.dir, h)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
	}
	gitdb.RemoveStaleTemps(tx.s.dir, now, grace)
	tx.resetStorage() // packs changed under go-git's index
	return res, atomicfile.SyncDir(filepath.Join(tx.s.dir, "objects", "pack"))
}

// reachable lists every object reachable from the refs, commits newest
// first per ref, each tree and blob grouped by its path so consecutive
// versions of one file sit next to each other for delta compression.
func (tx *Tx) reachable(ctx context.Context) ([]gcObject, error) {
	seen := map[Hash]bool{}
	var commits, trees, blobs []gcObject
	var walkTree func(h Hash, p string) error
	walkTree = func(h Hash, p string) error {
		if seen[h] {
			return nil
		}
		seen[h] = true
		o, err := tx.object(h)
		if err != nil {
			return err
		}
		trees = append(trees, gcObject{hash: h, typ: o.Type, data: o.Data, group: "tree:" + p})
		entries, err := parseTree(o.Data)
		if err != nil {
			return fmt.Errorf("tree %s: %w", h, err)
		}
		for _, e := range entries {
			ep := path.Join(p, e.Name)
			switch e.Mode {
			case skillfs.Dir:
				if err := walkTree(e.ID, ep); err != nil {
					return err
				}
			case skillfs.Gitlink:
			default:
				if seen[e.ID] {
					continue
				}
				seen[e.ID] = true
				b, err := tx.object(e.ID)
				if err != nil {
					return err
				}
				blobs = append(blobs, gcObject{hash: e.ID, typ: b.Type, data: b.Data, group: "blob:" + ep})
			}
		}
		return nil
	}
	for _, name := range tx.refs.Names("") {
		stack := []Hash{tx.refs[name]}
		for len(stack) > 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			h := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[h] {
				continue
			}
			seen[h] = true
			o, err := tx.object(h)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			switch o.Type {
			case gitdb.CommitObject:
			case gitdb.TagObject: // an annotated tag fetched with a plugin: keep what it names
				commits = append(commits, gcObject{hash: h, typ: o.Type, data: o.Data, group: "tag"})
				if target, ok := ParseHash(strings.TrimPrefix(strings.SplitN(string(o.Data), "\n", 2)[0], "object ")); ok {
					stack = append(stack, target)
				}
				continue
			case gitdb.TreeObject:
				seen[h] = false // walkTree marks it
				if err := walkTree(h, ""); err != nil {
					return nil, err
				}
				continue
			default:
				blobs = append(blobs, gcObject{hash: h, typ: o.Type, data: o.Data, group: "ref:" + name})
				continue
			}
			c, err := gitdb.ParseCommit(h, o.Data)
			if err != nil {
				return nil, err
			}
			commits = append(commits, gcObject{hash: h, typ: o.Type, data: o.Data, group: "commit:" + name})
			if err := walkTree(c.Tree, ""); err != nil {
				return nil, err
			}
			for i := len(c.Parents) - 1; i >= 0; i-- {
				stack = append(stack, c.Parents[i])
			}
		}
	}
	return append(append(commits, trees...), blobs...), nil
}

// deltify turns objects into pack entries, storing each as a delta against
// one of the previous few objects of its group when that is much smaller,
// with chains at most gcMaxDepth long. Bases always precede their deltas.
func deltify(objs []gcObject) ([]gitdb.PackObject, int) {
	out := make([]gitdb.PackObject, len(objs))
	depth := make([]int, len(objs))
	lastInGroup := map[string][]int{}
	deltas := 0
	for i, o := range objs {
		out[i] = gitdb.PackObject{ID: o.hash, Type: o.typ, Data: o.data}
		best := -1
		var bestDelta []byte
		for _, j := range lastInGroup[o.group] {
			if depth[j] >= gcMaxDepth || objs[j].typ != o.typ {
				continue
			}
			d := packfile.DiffDelta(objs[j].data, o.data)
			if len(d) < len(o.data)/2 && (bestDelta == nil || len(d) < len(bestDelta)) {
				best, bestDelta = j, d
			}
		}
		if best >= 0 {
			out[i].Base, out[i].Delta = best, bestDelta
			depth[i] = depth[best] + 1
			deltas++
		}
		w := append(lastInGroup[o.group], i)
		if len(w) > gcWindow {
			w = w[1:]
		}
		lastInGroup[o.group] = w
	}
	return out, deltas
}
