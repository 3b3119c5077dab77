package gitdb

import (
	"bufio"
	"cmp"
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
	level    int // zlib's, for whole objects
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

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
