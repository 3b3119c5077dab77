package gitdb

import (
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// GCResult says what gc did.
type GCResult struct {
	Objects      int   `json:"objects"`
	Deltas       int   `json:"deltas"`
	ReusedDeltas int   `json:"reused_deltas"`
	PackBytes    int64 `json:"pack_bytes"`
	LooseRemoved int   `json:"loose_removed"`
	PacksRemoved int   `json:"packs_removed"`
	Pruned       int   `json:"pruned"`
	Kept         int   `json:"kept_recent_unreachable"`
	Refs         int   `json:"refs_packed"`
	// Rescued counts objects that refs written during the gc reached
	// only through old packs: written loose before those were deleted.
	Rescued int `json:"rescued,omitempty"`
}

// A GC runs in two steps so that the repository stays usable meanwhile:
// PrepareGC writes the new pack aside with no lock held (it reads only
// objects that no one deletes: only gc deletes, one gc at a time), then
// Finish, under the caller's exclusive lock, puts the pack in place,
// keeps what writers made reachable meanwhile, packs the refs and
// deletes what the pack replaces. A process killed at any moment leaves
// every reachable object readable: the new pack is in place (index
// first) before anything is deleted.
type GC struct {
	dir   string
	grace time.Duration
	start time.Time
	refs  Refs // the snapshot the pack holds the objects of
	db    *DB
	walk  *gcWalk
	pack  *gcPack
	// What was stored when gc started: only that is ever deleted.
	loose map[ID]time.Time
	packs []gcOldPack
	res   GCResult
}

type gcOldPack struct {
	id      ID
	base    string // path without extension
	modTime time.Time
}

// PrepareGC lists what the repository at gitDir stores and writes every
// object reachable from refs into one new pack, not yet in place. It
// takes no lock: the caller makes sure no other gc runs, and snapshots
// refs consistently. Objects in old packs that refs do not reach and
// that are younger than grace are written loose, carrying the pack's
// time, so that a later gc expires them. Close the GC when done.
func PrepareGC(ctx context.Context, gitDir string, refs Refs, grace time.Duration) (*GC, error) {
	g := &GC{dir: gitDir, grace: grace, start: time.Now(), refs: refs, db: Open(gitDir)}
	var err error
	if g.loose, err = ListLoose(gitDir); err != nil {
		return g, err
	}
	stored := len(g.loose)
	for _, p := range g.db.openPacks().packs {
		stored += p.n
	}
	g.walk = newGCWalk(g.db, stored)
	if g.walk.pr.skipped > 0 {
		return g, fmt.Errorf("gc: objects/pack holds %d pack(s) whose index gc cannot read (run git fsck)", g.walk.pr.skipped)
	}
	for _, p := range g.walk.pr.packs {
		info, err := p.f.Stat()
		if err != nil {
			return g, err
		}
		base := strings.TrimSuffix(p.f.Name(), ".pack")
		id, _ := parseID(strings.TrimPrefix(filepath.Base(base), "pack-"))
		g.packs = append(g.packs, gcOldPack{id: id, base: base, modTime: info.ModTime()})
	}
	if err := g.walk.walk(ctx, refs); err != nil {
		return g, err
	}
	if err := g.keepRecentUnreachable(); err != nil {
		return g, err
	}
	if len(g.walk.entries) == 0 {
		return g, nil
	}
	pl := &gcPlanner{w: g.walk, level: zlib.DefaultCompression, searched: map[int32]bool{}}
	if last, ok := readGCPackID(gitDir); ok {
		for i, p := range g.packs {
			if p.id == last {
				pl.searched[int32(i)] = true
			}
		}
	}
	defer func() {
		if pl.spill != nil {
			pl.spill.Close()
			os.Remove(pl.spill.Name())
		}
	}()
	if err := pl.placeStored(); err != nil {
		return g, err
	}
	if err := pl.searchDeltas(ctx); err != nil {
		return g, err
	}
	if g.pack, err = pl.writePack(); err != nil {
		return g, err
	}
	g.res.Objects, g.res.Deltas = g.pack.objects, g.pack.deltas
	g.res.ReusedDeltas = g.pack.deltas - pl.newDelta
	g.res.PackBytes = g.pack.size
	return g, nil
}

// keepRecentUnreachable writes loose the objects of old packs younger
// than grace that the snapshot does not reach.
func (g *GC) keepRecentUnreachable() error {
	for i, p := range g.walk.pr.packs {
		mtime := g.packs[i].modTime
		if g.start.Sub(mtime) >= g.grace {
			continue
		}
		for j := 0; j < p.n; j++ {
			h := p.idAt(j)
			if _, ok := g.walk.index[h]; ok {
				continue
			}
			if _, ok := g.loose[h]; ok {
				continue
			}
			o, err := g.db.Read(h)
			if err != nil {
				return err
			}
			dir, err := WriteLoose(g.dir, h, o.Type, o.Data)
			if err != nil {
				return err
			}
			if err := os.Chtimes(filepath.Join(dir, h.String()[2:]), mtime, mtime); err != nil {
				return err
			}
			g.res.Kept++
		}
	}
	return nil
}

// Close releases the packs gc read and deletes a pack it wrote but did
// not put in place.
func (g *GC) Close() {
	g.db.Close()
	if g.pack != nil {
		os.Remove(g.pack.packTmp)
		os.Remove(g.pack.idxTmp)
	}
}

// Finish puts the new pack in place and deletes what it replaces; the
// caller holds the repository's exclusive lock, so current (the refs
// now) does not change meanwhile, and drops any pack index it caches.
// Objects that refs written since PrepareGC reach, and that only old
// packs hold, are written loose first.
func (g *GC) Finish(current Refs) (GCResult, error) {
	res := g.res
	packDir := filepath.Join(g.dir, "objects", "pack")
	var newPack ID
	if g.pack != nil {
		newPack = g.pack.id
		if err := g.pack.install(packDir, nil); err != nil {
			return res, fmt.Errorf("gc: %w", err)
		}
		g.pack = nil
	}
	if g.pack == nil && newPack != (ID{}) {
		if err := writeGCPackID(g.dir, newPack); err != nil {
			return res, err
		}
	}
	rescued, err := g.rescue(current)
	if err != nil {
		return res, err
	}
	res.Rescued = len(rescued)
	if err := PackAllRefs(g.dir); err != nil {
		return res, err
	}
	res.Refs = len(current)

	// Everything reachable is in the new pack or rescued: delete the rest
	// of what was stored when gc started.
	g.db.Close()
	for _, p := range g.packs {
		if p.id == newPack {
			continue
		}
		if removePack(p.base) {
			res.PacksRemoved++
		}
	}
	now := time.Now()
	for h, mtime := range g.loose {
		_, reached := g.walk.index[h]
		switch {
		case rescued[h]:
			continue
		case reached:
			res.LooseRemoved++
		case now.Sub(mtime) >= g.grace:
			res.Pruned++
		default:
			res.Kept++
			continue
		}
		if err := os.Remove(LoosePath(g.dir, h)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
	}
	RemoveStaleTemps(g.dir, now, g.grace)
	return res, atomicfile.SyncDir(packDir)
}

// gcPackFile records the pack the last gc wrote, whose objects its delta
// search compared already. git ignores unknown files in objects/info.
func gcPackFile(gitDir string) string {
	return filepath.Join(gitDir, "objects", "info", "skillstore-gc-pack")
}

func readGCPackID(gitDir string) (ID, bool) {
	data, err := os.ReadFile(gcPackFile(gitDir))
	if err != nil {
		return ID{}, false
	}
	return parseID(strings.TrimSpace(string(data)))
}

func writeGCPackID(gitDir string, id ID) error {
	dir := filepath.Dir(gcPackFile(gitDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("gc: %w", err)
	}
	if err := writeSynced(dir, "tmp_pack_id_", gcPackFile(gitDir), []byte(id.String()+"\n")); err != nil {
		return fmt.Errorf("gc: %w", err)
	}
	return nil
}

// rescue walks what current reaches beyond the snapshot (refs moved or
// added since PrepareGC, whose objects a writer may have found in an
// old pack and not written again) and makes sure each such object
// outlives the old packs: loose, or in a pack gc did not list.
func (g *GC) rescue(current Refs) (map[ID]bool, error) {
	out := map[ID]bool{}
	db := Open(g.dir) // sees the packs written since gc started
	defer db.Close()
	old := map[*packFile]bool{}
	listed := map[string]bool{}
	for _, p := range g.packs {
		listed[p.base+".pack"] = true
	}
	for _, p := range db.openPacks().packs {
		old[p] = listed[p.f.Name()]
	}
	seen := map[ID]bool{}
	type item struct {
		id   ID
		blob bool
	}
	var stack []item
	for name, h := range current {
		if g.refs[name] != h {
			stack = append(stack, item{id: h})
		}
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[it.id] {
			continue
		}
		seen[it.id] = true
		if _, inNew := g.walk.index[it.id]; inNew {
			continue // with all it reaches
		}
		// Where is it now?
		safe := false
		if db.mayBeLoose(it.id) {
			if _, err := os.Stat(LoosePath(g.dir, it.id)); err == nil {
				safe = true
			}
		}
		for _, p := range db.openPacks().packs {
			if _, ok := p.offset(it.id); ok && !old[p] {
				safe = true
			}
		}
		out[it.id] = true
		if it.blob && safe {
			continue
		}
		o, err := db.Read(it.id)
		if err != nil {
			return nil, fmt.Errorf("gc: object %s that a ref reaches: %w", it.id, err)
		}
		if !safe {
			if _, err := WriteLoose(g.dir, it.id, o.Type, o.Data); err != nil {
				return nil, err
			}
			if err := atomicfile.SyncDir(filepath.Dir(LoosePath(g.dir, it.id))); err != nil {
				return nil, err
			}
		}
		switch o.Type {
		case CommitObject:
			c, err := ParseCommit(it.id, o.Data)
			if err != nil {
				return nil, err
			}
			stack = append(stack, item{id: c.Tree})
			for _, p := range c.Parents {
				stack = append(stack, item{id: p})
			}
		case TagObject:
			first, _, _ := strings.Cut(string(o.Data), "\n")
			if target, err := skillfs.ParseID(strings.TrimPrefix(first, "object ")); err == nil {
				stack = append(stack, item{id: target})
			}
		case TreeObject:
			entries, err := skillfs.ParseTree(o.Data)
			if err != nil {
				return nil, fmt.Errorf("tree %s: %w", it.id, err)
			}
			for _, e := range entries {
				switch e.Mode {
				case skillfs.Gitlink:
				case skillfs.Dir:
					stack = append(stack, item{id: e.ID})
				default:
					stack = append(stack, item{id: e.ID, blob: true})
				}
			}
		}
	}
	return out, nil
}
