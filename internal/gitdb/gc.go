package gitdb

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
	"github.com/skillstore/skillstore/internal/skillfs"
)

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

type gcObject struct {
	hash  ID
	typ   ObjectType
	data  []byte
	group string
}

// GC packs every object reachable from refs into one delta-compressed
// pack, packs the refs, and deletes loose objects and old packs.
// Unreachable objects younger than grace are kept (as loose objects, with
// their original time), older ones are deleted. read reads an object of
// the repository. The caller holds the repository's write lock, so no
// writer has objects in flight, and drops any pack index it caches.
func GC(ctx context.Context, gitDir string, refs Refs, read func(ID) (Object, error), grace time.Duration) (GCResult, error) {
	var res GCResult
	now := time.Now()
	objs, err := reachable(ctx, refs, read)
	if err != nil {
		return res, err
	}
	reached := make(map[ID]bool, len(objs))
	for _, o := range objs {
		reached[o.hash] = true
	}

	// Inventory what is stored before writing anything.
	loose, err := ListLoose(gitDir)
	if err != nil {
		return res, err
	}
	packs, err := ListPacks(gitDir)
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
			if reached[h] {
				continue
			}
			if _, isLoose := loose[h]; isLoose {
				continue
			}
			o, err := read(h)
			if err != nil {
				return res, err
			}
			dir, err := WriteLoose(gitDir, h, o.Type, o.Data)
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
	var newPack ID
	if len(packObjs) > 0 {
		if newPack, err = WritePack(gitDir, packObjs, zlib.BestCompression); err != nil {
			return res, err
		}
		if info, err := os.Stat(filepath.Join(gitDir, "objects", "pack", "pack-"+newPack.String()+".pack")); err == nil {
			res.PackBytes = info.Size()
		}
	}
	current, err := ReadRefs(gitDir)
	if err != nil {
		return res, err
	}
	if err := PackAllRefs(gitDir); err != nil {
		return res, err
	}
	res.Refs = len(current)

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
		case reached[h]:
			res.LooseRemoved++
		case now.Sub(mtime) >= grace:
			res.Pruned++
		default:
			res.Kept++
			continue
		}
		if err := os.Remove(LoosePath(gitDir, h)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
	}
	RemoveStaleTemps(gitDir, now, grace)
	return res, atomicfile.SyncDir(filepath.Join(gitDir, "objects", "pack"))
}

// reachable lists every object reachable from the refs, commits newest
// first per ref, each tree and blob grouped by its path so consecutive
// versions of one file sit next to each other for delta compression.
func reachable(ctx context.Context, refs Refs, read func(ID) (Object, error)) ([]gcObject, error) {
	seen := map[ID]bool{}
	var commits, trees, blobs []gcObject
	var walkTree func(h ID, p string) error
	walkTree = func(h ID, p string) error {
		if seen[h] {
			return nil
		}
		seen[h] = true
		o, err := read(h)
		if err != nil {
			return err
		}
		trees = append(trees, gcObject{hash: h, typ: o.Type, data: o.Data, group: "tree:" + p})
		entries, err := skillfs.ParseTree(o.Data)
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
				b, err := read(e.ID)
				if err != nil {
					return err
				}
				blobs = append(blobs, gcObject{hash: e.ID, typ: b.Type, data: b.Data, group: "blob:" + ep})
			}
		}
		return nil
	}
	for _, name := range refs.Names("") {
		stack := []ID{refs[name]}
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
			o, err := read(h)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			switch o.Type {
			case CommitObject:
			case TagObject: // an annotated tag fetched with a plugin: keep what it names
				commits = append(commits, gcObject{hash: h, typ: o.Type, data: o.Data, group: "tag"})
				if target, err := skillfs.ParseID(strings.TrimPrefix(strings.SplitN(string(o.Data), "\n", 2)[0], "object ")); err == nil {
					stack = append(stack, target)
				}
				continue
			case TreeObject:
				seen[h] = false // walkTree marks it
				if err := walkTree(h, ""); err != nil {
					return nil, err
				}
				continue
			default:
				blobs = append(blobs, gcObject{hash: h, typ: o.Type, data: o.Data, group: "ref:" + name})
				continue
			}
			c, err := ParseCommit(h, o.Data)
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
func deltify(objs []gcObject) ([]PackObject, int) {
	out := make([]PackObject, len(objs))
	depth := make([]int, len(objs))
	lastInGroup := map[string][]int{}
	deltas := 0
	for i, o := range objs {
		out[i] = PackObject{ID: o.hash, Type: o.typ, Data: o.data}
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
