package gitdb

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/atomicfile"
)

// MergeResult says what a pack merge did.
type MergeResult struct {
	Pack      ID    `json:"pack"`    // the pack written
	Objects   int   `json:"objects"` // objects in it
	Deltas    int   `json:"deltas"`  // of them, deltas copied as they were stored
	PackBytes int64 `json:"pack_bytes"`
	Packs     int   `json:"packs_merged"` // packs it replaces
	Loose     int   `json:"loose_packed"` // loose objects it replaces
}

// MergePacks writes every object of the packs named (by the checksum in
// their name, pack-<id>.pack) and, when loose is set, every loose object,
// into one new pack, then deletes what it replaces. It runs no delta
// search: each packed entry is copied as it is stored (its compressed
// bytes, checked against the CRC of its old index), a delta with its
// base, so the merge costs about a copy of the packs; only a loose object
// or a delta whose base is in none of the packs merged is read and
// written whole. Unlike gc it keeps every object, reachable or not: it
// is cheap enough to run after a write (see AutoPack).
//
// It is as safe as gc against a kill: the new pack and its index are
// fsynced and renamed into place (index first) before anything is
// deleted, so every object is readable at every moment; a kill leaves at
// worst temporary files (which gc removes) or objects stored twice. A
// reader that has the old packs open goes on reading them (a DB keeps
// its packs mapped, and looks again on a miss).
//
// The caller holds the repository's write lock and makes sure no gc runs
// meanwhile (gc lists what it deletes when it starts). Named packs that
// are not there, have a .keep file, or have an index gitdb cannot read
// are left alone. Fewer than two packs and no loose object is nothing
// to merge: the result is then zero.
func MergePacks(ctx context.Context, gitDir string, packs []ID, loose bool) (MergeResult, error) {
	var res MergeResult
	db := Open(gitDir)
	defer db.Close()
	pr := db.openPacks()
	want := map[ID]bool{}
	for _, id := range packs {
		want[id] = true
	}
	var chosen []int32 // indexes into pr.packs, largest first
	stored := 0
	for i, p := range pr.packs {
		id, ok := packFileID(p)
		if !ok || !want[id] || hasKeep(p) {
			continue
		}
		chosen = append(chosen, int32(i))
		stored += p.n
	}
	var looseObjs []ID
	if loose {
		all, err := ListLoose(gitDir)
		if err != nil {
			return res, fmt.Errorf("merge packs: %w", err)
		}
		for h := range all {
			looseObjs = append(looseObjs, h)
		}
		slices.SortFunc(looseObjs, func(a, b ID) int { return bytes.Compare(a[:], b[:]) })
		stored += len(looseObjs)
	}
	if len(chosen) < 2 && len(looseObjs) == 0 {
		return res, nil
	}
	// The largest pack first: its entries are kept where an object is in
	// two packs, and most deltas are copied with their base.
	slices.SortStableFunc(chosen, func(a, b int32) int { return pr.packs[b].n - pr.packs[a].n })

	w := &gcWalk{db: db, pr: pr, index: make(map[ID]int32, stored), entries: make([]gcEntry, 0, stored),
		refBases: map[int32]ID{}, reads: readWindow{ahead: 256 << 10}}
	for _, i := range chosen {
		p := pr.packs[i]
		for j := 0; j < p.n; j++ {
			h := p.idAt(j)
			if _, ok := w.index[h]; ok {
				continue
			}
			off, ok := p.offsetAt(j)
			if !ok {
				return res, fmt.Errorf("merge packs: object %s: its offset is not in its pack's index", h)
			}
			w.index[h] = int32(len(w.entries))
			w.entries = append(w.entries, gcEntry{id: h, pack: i, off: off, crc: p.crcAt(j), base: -1, newOff: -1})
		}
	}
	var looseTaken []ID
	for _, h := range looseObjs {
		if _, ok := w.index[h]; ok {
			looseTaken = append(looseTaken, h) // in a merged pack already: deleted too
			continue
		}
		w.index[h] = int32(len(w.entries))
		w.entries = append(w.entries, gcEntry{id: h, pack: gcLoose, base: -1, newOff: -1})
		looseTaken = append(looseTaken, h)
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}

	pl := &gcPlanner{w: w, level: zlib.DefaultCompression, searched: map[int32]bool{}}
	dropSpill := func() {
		if pl.spill != nil {
			pl.spill.Close()
			os.Remove(pl.spill.Name())
			pl.spill = nil
		}
	}
	defer dropSpill()
	if err := pl.placeStored(); err != nil {
		return res, fmt.Errorf("merge packs: %w", err)
	}
	if err := pl.writeWhole(ctx); err != nil {
		return res, err
	}
	gp, err := pl.writePack()
	if err != nil {
		return res, err
	}
	dropSpill()
	defer func() { // nothing once in place
		os.Remove(gp.packTmp)
		os.Remove(gp.idxTmp)
	}()
	if mergeStep != nil {
		mergeStep("written")
	}
	packDir := filepath.Join(gitDir, "objects", "pack")
	if err := gp.install(packDir, mergeStep); err != nil {
		return res, fmt.Errorf("merge packs: %w", err)
	}
	if mergeStep != nil {
		mergeStep("pack")
	}
	res = MergeResult{Pack: gp.id, Objects: gp.objects, Deltas: gp.deltas, PackBytes: gp.size}

	// Every object is in the new pack: delete what it replaces.
	var olds []string
	for _, i := range chosen {
		if id, _ := packFileID(pr.packs[i]); id != gp.id { // else the same objects, merged again
			olds = append(olds, strings.TrimSuffix(pr.packs[i].f.Name(), ".pack"))
		}
	}
	db.Close()
	for _, old := range olds {
		if removePack(old) {
			res.Packs++
		}
	}
	if mergeStep != nil {
		mergeStep("packs removed")
	}
	for _, h := range looseTaken {
		if err := os.Remove(LoosePath(gitDir, h)); err == nil {
			res.Loose++
		} else if !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("merge packs: %w", err)
		}
	}
	return res, atomicfile.SyncDir(packDir)
}

// mergeStep, when set, runs after each step of MergePacks that changes
// what is on disk (a test seam: the kill test stops there).
var mergeStep func(step string)

// writeWhole writes the entries that cannot be copied (loose objects,
// and deltas whose base is not merged) whole, compressed into the spill
// file, a batch at a time.
func (pl *gcPlanner) writeWhole(ctx context.Context) error {
	w := pl.w
	const batch = 512
	r := chunkResult{}
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(nil, pl.level)
	flush := func() error {
		r.buf = buf.Bytes()
		if err := pl.spillChunk(r); err != nil {
			return err
		}
		r, buf = chunkResult{}, bytes.Buffer{}
		return nil
	}
	for i := range w.entries {
		e := &w.entries[i]
		if !e.search || e.storedWhole() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		o, err := w.db.Read(e.id)
		if err != nil {
			return fmt.Errorf("merge packs: %w", err)
		}
		e.typ = o.Type
		before := buf.Len()
		zw.Reset(&buf)
		zw.Write(o.Data)
		if err := zw.Close(); err != nil {
			return fmt.Errorf("merge packs: %w", err)
		}
		r.outs = append(r.outs, spilled{idx: int32(i), kind: o.Type, payload: int64(len(o.Data)), n: int64(buf.Len() - before)})
		if len(r.outs) == batch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// packFileID is the checksum a pack is named by.
func packFileID(p *packFile) (ID, bool) {
	name := strings.TrimSuffix(filepath.Base(p.f.Name()), ".pack")
	return parseID(strings.TrimPrefix(name, "pack-"))
}

// hasKeep reports whether a .keep file marks the pack as one to leave as
// it is (git's convention; repack leaves such packs alone).
func hasKeep(p *packFile) bool {
	_, err := os.Lstat(strings.TrimSuffix(p.f.Name(), ".pack") + ".keep")
	return err == nil
}
