package gitdb

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/zlib"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
)

// The delta search runs on every core, as git's pack.threads does: the
// sorted list is cut into chunks, each searched by one worker with a
// window of its own, and their results are spilled in the list's order.
// The cuts depend on the list alone, never on the number of workers, so
// a gc writes the same pack on any machine.
const (
	// A chunk ends at a change of name (or type) once it holds
	// gcChunkObjects objects or gcChunkBytes of their data; versions of
	// one file stay together, so a cut costs no delta between them.
	gcChunkObjects = 1024
	gcChunkBytes   = 8 << 20
	// gcChunkMax cuts a run of one name anyway (the SKILL.md of every
	// skill of a store share one): its first objects lose the window's
	// last few candidates, not their versions' deltas, which sit in the
	// run by size rather than side by side.
	gcChunkMax = 4 * gcChunkObjects
)

// deltaChunks cuts the sorted list into the chunks the workers search.
func deltaChunks(entries []gcEntry, list []int32) [][]int32 {
	var chunks [][]int32
	start, size := 0, int64(0)
	for i, t := range list {
		if n := i - start; n > 0 {
			e, prev := &entries[t], &entries[list[i-1]]
			full := n >= gcChunkObjects || size >= gcChunkBytes
			newName := e.typ != prev.typ || e.nameHash != prev.nameHash || e.nameHash == 0
			if full && newName || n >= gcChunkMax {
				chunks = append(chunks, list[start:i])
				start, size = i, 0
			}
		}
		size += entries[t].size
	}
	if start < len(list) {
		chunks = append(chunks, list[start:])
	}
	return chunks
}

// searchDeltas runs the delta search over the entries marked for it,
// sorted by type, name and decreasing size, each compared with the
// previous gcWindow of its type in its chunk. As git does, an object
// stored whole in a pack gc wrote is not compared with objects of that
// same pack: that gc compared them already, so a repeated gc inflates
// only what is new. (Unlike git's, the other packs of a store, written
// by import, were never searched.)
//
// Workers compress what they write anew into a buffer per chunk; this
// goroutine appends the buffers to the spill file in chunk order. At
// most two chunks per worker are in flight, so memory is bounded by
// chunks, not by the store.
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
	chunks := deltaChunks(w.entries, list)
	if len(chunks) == 0 {
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), len(chunks))
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait() // no worker reads the entries or the store past here
	}()
	slots := make(chan struct{}, 2*workers) // chunks handed out and not yet spilled
	todo := make(chan int)
	done := make(chan chunkResult, cap(slots)) // never full: a result holds a slot
	wg.Go(func() {
		defer close(todo)
		for k := range chunks {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case todo <- k:
			case <-ctx.Done():
				return
			}
		}
	})
	for range workers {
		wk := &deltaWorker{pl: pl, db: w.db.fork()}
		wk.zw, _ = zlib.NewWriterLevel(nil, pl.level)
		wk.zwFast, _ = zlib.NewWriterLevel(nil, zlib.BestSpeed)
		wg.Go(func() {
			for k := range todo {
				done <- wk.search(ctx, k, chunks[k])
			}
		})
	}
	pending := map[int]chunkResult{}
	for next := 0; next < len(chunks); {
		r, ok := pending[next]
		if !ok {
			select {
			case r = <-done:
			case <-ctx.Done():
				return ctx.Err()
			}
			if r.err != nil {
				return r.err
			}
			pending[r.k] = r
			continue
		}
		delete(pending, next)
		if err := pl.spillChunk(r); err != nil {
			return err
		}
		<-slots
		next++
	}
	return nil
}

// chunkResult is what a worker made of one chunk: the payloads it wrote
// anew, compressed one after the other into buf.
type chunkResult struct {
	k    int
	outs []spilled
	buf  []byte
	err  error
}

// spilled is one entry's payload in a chunkResult's buf.
type spilled struct {
	idx     int32
	kind    ObjectType
	payload int64 // the uncompressed size, for the entry's header
	n       int64 // compressed bytes in buf
}

// deltaWorker searches chunks, one at a time, with its own window,
// delta buffers and compressors.
type deltaWorker struct {
	pl         *gcPlanner
	db         *DB
	spare      []*deltaIndex // of slots that left the window
	best, cur  []byte        // delta buffers, swapped when cur is better
	zw, zwFast *zlib.Writer
}

// windowSlot is an object of the delta search's window; its data and
// index are loaded only when a target is compared with it. rewritten
// says the chunk writes it anew (as a delta, or whole out of a loose
// object or a delta whose base is gone): it is no longer its old pack's.
type windowSlot struct {
	idx       int32
	data      []byte
	ix        *deltaIndex
	rewritten bool
}

func (wk *deltaWorker) load(s *windowSlot) ([]byte, error) {
	if s.data == nil {
		o, err := wk.db.Read(wk.pl.w.entries[s.idx].id)
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

// search runs the windowed search over one chunk. It writes only the
// entries of its chunk (their base and depth), which no other goroutine
// reads until the result is spilled.
func (wk *deltaWorker) search(ctx context.Context, k int, chunk []int32) chunkResult {
	r := chunkResult{k: k}
	var buf bytes.Buffer
	window := make([]windowSlot, 0, gcWindow)
	defer func() {
		for _, s := range window {
			if s.ix != nil {
				s.ix.src = nil
				wk.spare = append(wk.spare, s.ix)
			}
		}
	}()
	w := wk.pl.w
	for n, t := range chunk {
		if n%256 == 0 {
			if r.err = ctx.Err(); r.err != nil {
				return r
			}
		}
		te := &w.entries[t]
		slot := windowSlot{idx: t}
		wk.best = wk.best[:0]
		found := false
		bestBase := int32(-1)
		for k := len(window) - 1; k >= 0 && te.size >= gcMinDeltaSize; k-- {
			s := &window[k]
			se := &w.entries[s.idx]
			if se.typ != te.typ || se.depth >= gcMaxDepth || se.size < te.size/32 {
				continue
			}
			if te.storedWhole() && !s.rewritten && se.pack == te.pack && wk.pl.searched[te.pack] {
				continue
			}
			maxSize := (te.size/2 - 20) * int64(gcMaxDepth-se.depth) / gcMaxDepth
			if found {
				maxSize = min(maxSize, int64(len(wk.best))-1)
			}
			if maxSize <= 0 || abs64(se.size-te.size) >= maxSize {
				continue
			}
			tgt, err := wk.load(&slot)
			if err != nil {
				r.err = err
				return r
			}
			src, err := wk.load(s)
			if err != nil {
				r.err = err
				return r
			}
			if s.ix == nil {
				ix := new(deltaIndex)
				if len(wk.spare) > 0 {
					ix, wk.spare = wk.spare[len(wk.spare)-1], wk.spare[:len(wk.spare)-1]
				}
				s.ix = ix.reset(src)
			}
			if d := s.ix.delta(tgt, int(maxSize), wk.cur); d != nil {
				wk.best, wk.cur = d, wk.best
				found, bestBase = true, s.idx
			} else {
				wk.cur = wk.cur[:0]
			}
		}
		switch {
		case found:
			if r.err = wk.compress(&r, &buf, t, OFSDeltaObject, wk.best); r.err != nil {
				return r
			}
			te.base, te.depth = bestBase, w.entries[bestBase].depth+1
			slot.rewritten = true
		case !te.storedWhole():
			data, err := wk.load(&slot)
			if err != nil {
				r.err = err
				return r
			}
			if r.err = wk.compress(&r, &buf, t, te.typ, data); r.err != nil {
				return r
			}
			slot.rewritten = true
		}
		if len(window) == gcWindow {
			if ix := window[0].ix; ix != nil {
				ix.src = nil
				wk.spare = append(wk.spare, ix)
			}
			copy(window, window[1:])
			window = window[:gcWindow-1]
		}
		window = append(window, slot)
	}
	r.buf = buf.Bytes()
	return r
}

// compress appends data (an object or a delta) to buf, compressed, as
// entry i's payload.
func (wk *deltaWorker) compress(r *chunkResult, buf *bytes.Buffer, i int32, kind ObjectType, data []byte) error {
	// Deltas are short and mostly literal bytes: zlib's fastest level
	// loses little on them, and its reset, unlike the other levels',
	// does not clear a 512 KB table for every object.
	zw := wk.zw
	if kind == OFSDeltaObject || len(data) < 512 {
		zw = wk.zwFast
	}
	before := buf.Len()
	zw.Reset(buf)
	if _, err := zw.Write(data); err != nil {
		return fmt.Errorf("gc: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("gc: %w", err)
	}
	r.outs = append(r.outs, spilled{idx: i, kind: kind, payload: int64(len(data)), n: int64(buf.Len() - before)})
	return nil
}

// spillChunk appends a chunk's payloads to the spill file and makes each
// its entry's stored bytes.
func (pl *gcPlanner) spillChunk(r chunkResult) error {
	if len(r.outs) == 0 {
		return nil
	}
	if pl.spill == nil {
		f, err := os.CreateTemp(pl.w.db.dir+"/objects/pack", "tmp_pack_gc_")
		if err != nil {
			return fmt.Errorf("gc: %w", err)
		}
		pl.spill, pl.spillW = f, bufio.NewWriterSize(f, 1<<16)
	}
	if _, err := pl.spillW.Write(r.buf); err != nil {
		return fmt.Errorf("gc: %w", err)
	}
	for _, o := range r.outs {
		e := &pl.w.entries[o.idx]
		if e.pack == gcLoose { // a packed entry is in order already
			pl.order = append(pl.order, o.idx)
		}
		e.pack, e.kind, e.payload, e.hdrLen = gcSpill, o.kind, o.payload, 0
		e.off, e.end = pl.spillLen, pl.spillLen+o.n
		pl.spillLen = e.end
		if o.kind == OFSDeltaObject {
			pl.newDelta++
		}
	}
	return nil
}
