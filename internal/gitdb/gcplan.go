package gitdb

import (
	"bufio"
	"cmp"
	"compress/zlib"
	"context"
	"fmt"
	"os"
	"slices"
)

// gc's delta settings: a window of 4 objects sorted by type, name and
// size (git gc's default is 10; 4 finds as small a pack on stores of
// skills, whose versions sit side by side in the sort, for 30% less
// time), chains of at most 50 deltas (git's pack.depth).
const (
	gcWindow   = 4
	gcMaxDepth = 50
	// gcMinDeltaSize: smaller objects are stored whole (a delta's header
	// and copy instructions would not pay for themselves).
	gcMinDeltaSize = 50
	// gcMaxChain bounds the chain of a copied delta: a copied delta's
	// base may itself have become a delta; past this it is stored whole.
	gcMaxChain = 1000
)

// gcPlanner decides how each reachable object goes into the new pack:
// a delta or whole object of an old pack is copied as it is stored (its
// compressed bytes, not inflated) when its base goes into the new pack
// too; everything else (loose objects, deltas whose base is gone, and
// objects stored whole, which may gain a delta) goes through a delta
// search over a sliding window, and what it writes anew is compressed
// into a spill file, so no object's data is held past its window.
type gcPlanner struct {
	w        *gcWalk
	spill    *os.File
	spillW   *bufio.Writer
	spillLen int64
	zw       *zlib.Writer // at level, for whole objects
	zwFast   *zlib.Writer // for deltas and small objects
	level    int
	newDelta int
	// searched marks the old packs a gc wrote: their objects stored
	// whole were compared with each other already.
	searched map[int32]bool
	// order lists the packed entries by pack and offset (the order the
	// new pack copies them in), then the spilled ones.
	order []int32
}

// placeStored finds where each packed entry ends and which copied delta
// has its base in the new pack; the others go to the delta search.
func (pl *gcPlanner) placeStored() error {
	w := pl.w
	// The packed entries in pack and offset order: where each ends, and
	// which entry an OFS_DELTA's base offset names.
	pl.order = make([]int32, 0, len(w.entries))
	for i := range w.entries {
		if w.entries[i].pack >= 0 {
			pl.order = append(pl.order, int32(i))
		}
	}
	slices.SortFunc(pl.order, func(a, b int32) int {
		ea, eb := &w.entries[a], &w.entries[b]
		return cmp.Or(cmp.Compare(ea.pack, eb.pack), cmp.Compare(ea.off, eb.off))
	})
	for _, i := range pl.order {
		if err := w.readHeader(i); err != nil {
			return err
		}
	}
	atOffset := func(pack int32, off int64) (int32, bool) {
		k, ok := slices.BinarySearchFunc(pl.order, off, func(i int32, off int64) int {
			e := &w.entries[i]
			return cmp.Or(cmp.Compare(e.pack, pack), cmp.Compare(e.off, off))
		})
		if !ok {
			return -1, false
		}
		return pl.order[k], true
	}
	for i := range w.entries {
		if e := &w.entries[i]; e.pack == gcLoose {
			e.search = true
			n, err := looseSize(w.db.dir, e.id)
			if err != nil {
				return err
			}
			e.size = n
		}
	}
	var ends []int64
	endsOf := int32(-1)
	for _, i := range pl.order {
		e := &w.entries[i]
		if endsOf != e.pack {
			ends, endsOf = w.packEnds(int(e.pack)), e.pack
		}
		k, found := slices.BinarySearch(ends, e.off)
		if !found || k+1 >= len(ends) {
			return fmt.Errorf("object %s: its offset is not in its pack's index", e.id)
		}
		e.end = ends[k+1]
		switch e.kind {
		case OFSDeltaObject:
			if b, ok := atOffset(e.pack, e.newOff); ok {
				e.base, e.newOff = b, -1
				continue
			}
		case REFDeltaObject:
			if b, ok := w.index[w.refBases[i]]; ok && b != i {
				e.base, e.kind, e.newOff = b, OFSDeltaObject, -1
				continue
			}
		default:
			e.search = true // stored whole: copied unless it gains a delta
			continue
		}
		// A delta whose base does not go into the new pack: rebuilt.
		e.search, e.newOff = true, -1
		n, err := w.pr.packs[e.pack].objectSize(e.off)
		if err != nil {
			return fmt.Errorf("object %s: %w", e.id, err)
		}
		e.size = n
	}
	return nil
}

// storedWhole reports whether e can be copied as it is: an old pack's
// entry holding the whole object.
func (e *gcEntry) storedWhole() bool {
	return e.pack >= 0 && e.base < 0 && e.kind >= CommitObject && e.kind <= TagObject
}

// windowSlot is an object of the delta search's window; its data and
// index are loaded only when a target is compared with it.
type windowSlot struct {
	idx  int32
	data []byte
	ix   *deltaIndex
}

func (pl *gcPlanner) load(s *windowSlot) ([]byte, error) {
	if s.data == nil {
		o, err := pl.w.db.Read(pl.w.entries[s.idx].id)
		if err != nil {
			return nil, err
		}
		s.data = o.Data
		if s.data == nil {
			s.data = []byte{}
		}
	}
	return s.data, nil
}

// searchDeltas runs the delta search over the entries marked for it,
// sorted by type, name and decreasing size, each compared with the
// previous gcWindow of its type. As git does, an object stored whole in
// a pack gc wrote is not compared with objects of that same pack: that
// gc compared them already, so a repeated gc inflates only what is new.
// (Unlike git's, the other packs of a store, written by import, were
// never searched.)
func (pl *gcPlanner) searchDeltas(ctx context.Context) error {
	w := pl.w
	var list []int32
	for i := range w.entries {
		if w.entries[i].search {
			list = append(list, int32(i))
		}
	}
	slices.SortFunc(list, func(a, b int32) int {
		ea, eb := &w.entries[a], &w.entries[b]
		return cmp.Or(cmp.Compare(ea.typ, eb.typ), cmp.Compare(ea.nameHash, eb.nameHash),
			cmp.Compare(eb.size, ea.size), cmp.Compare(a, b)) // then newest first, as walked
	})
	window := make([]windowSlot, 0, gcWindow)
	var spare []*deltaIndex // of slots that left the window
	var best, cur []byte    // delta buffers, swapped when cur is better
	for n, t := range list {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		te := &w.entries[t]
		slot := windowSlot{idx: t}
		best = best[:0]
		found := false
		bestBase := int32(-1)
		for k := len(window) - 1; k >= 0 && te.size >= gcMinDeltaSize; k-- {
			s := &window[k]
			se := &w.entries[s.idx]
			if se.typ != te.typ || se.depth >= gcMaxDepth || se.size < te.size/32 {
				continue
			}
			if te.storedWhole() && se.pack == te.pack && pl.searched[te.pack] {
				continue
			}
			maxSize := (te.size/2 - 20) * int64(gcMaxDepth-se.depth) / gcMaxDepth
			if found {
				maxSize = min(maxSize, int64(len(best))-1)
			}
			if maxSize <= 0 || abs64(se.size-te.size) >= maxSize {
				continue
			}
			tgt, err := pl.load(&slot)
			if err != nil {
				return err
			}
			src, err := pl.load(s)
			if err != nil {
				return err
			}
			if s.ix == nil {
				ix := new(deltaIndex)
				if len(spare) > 0 {
					ix, spare = spare[len(spare)-1], spare[:len(spare)-1]
				}
				s.ix = ix.reset(src)
			}
			if d := s.ix.delta(tgt, int(maxSize), cur); d != nil {
				best, cur = d, best
				found, bestBase = true, s.idx
			} else {
				cur = cur[:0]
			}
		}
		switch {
		case found:
			if err := pl.spillPayload(t, OFSDeltaObject, best); err != nil {
				return err
			}
			te.base, te.depth = bestBase, w.entries[bestBase].depth+1
			pl.newDelta++
		case !te.storedWhole():
			data, err := pl.load(&slot)
			if err != nil {
				return err
			}
			if err := pl.spillPayload(t, te.typ, data); err != nil {
				return err
			}
		}
		if len(window) == gcWindow {
			if ix := window[0].ix; ix != nil {
				ix.src = nil
				spare = append(spare, ix)
			}
			copy(window, window[1:])
			window = window[:gcWindow-1]
		}
		window = append(window, slot)
	}
	return nil
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// spillPayload compresses data (an object or a delta) into the spill
// file and makes it e's stored bytes.
func (pl *gcPlanner) spillPayload(i int32, kind ObjectType, data []byte) error {
	e := &pl.w.entries[i]
	if pl.spill == nil {
		f, err := os.CreateTemp(pl.w.db.dir+"/objects/pack", "tmp_pack_gc_")
		if err != nil {
			return fmt.Errorf("gc: %w", err)
		}
		pl.spill, pl.spillW = f, bufio.NewWriterSize(f, 1<<16)
		pl.zw, _ = zlib.NewWriterLevel(nil, pl.level)
		pl.zwFast, _ = zlib.NewWriterLevel(nil, zlib.BestSpeed)
	}
	// Deltas are short and mostly literal bytes: zlib's fastest level
	// loses little on them, and its reset, unlike the other levels',
	// does not clear a 512 KB table for every object.
	zw := pl.zw
	if kind == OFSDeltaObject || len(data) < 512 {
		zw = pl.zwFast
	}
	cw := &countingWriter{w: pl.spillW}
	zw.Reset(cw)
	if _, err := zw.Write(data); err != nil {
		return fmt.Errorf("gc: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("gc: %w", err)
	}
	if e.pack == gcLoose { // a packed entry is in order already
		pl.order = append(pl.order, i)
	}
	e.pack, e.kind, e.payload, e.hdrLen = gcSpill, kind, int64(len(data)), 0
	e.off, e.end = pl.spillLen, pl.spillLen+cw.n
	pl.spillLen = e.end
	return nil
}

type countingWriter struct {
	w interface{ Write([]byte) (int, error) }
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
