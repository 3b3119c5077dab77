package gitdb

import (
	"compress/zlib"
	"fmt"
)

// Spill lets a Buffer write what it holds into a pack once it holds Bytes
// of object data, and go on queueing: a bulk import then holds one pack's
// worth of objects at a time instead of all of them. A spilled pack is
// written like any other (fsynced, its index in place first) before any
// ref can point at its objects, so a writer killed after a spill leaves
// only unreachable objects, which gc prunes past its grace period.
//
// The pack is compressed and written in the background while the caller
// goes on queueing the next one (at most one pack at a time, so at most
// twice Bytes are held): compressing is a good part of an import's work,
// and it then runs beside the reading of the next folders. Until the pack
// is written its objects are still returned by Get.
type Spill struct {
	GitDir string
	Bytes  int
	// Has says which objects the repository holds already (not written).
	Has func(ID) bool
	// Spilled runs after each spill is written, for readers to see the
	// new pack; it runs on the goroutine that calls Add or Flush.
	Spilled func()
}

// SpillBytes is the object data a transaction holds before it spills.
const SpillBytes = 16 << 20

// spill starts writing the queued objects the repository does not hold
// into a pack, once the previous spill is written, and empties the queue.
func (b *Buffer) spill() error {
	if err := b.waitSpill(); err != nil {
		return err
	}
	var objs []PackObject
	for _, h := range b.order {
		if !b.Spill.Has(h) {
			o := b.objs[h]
			objs = append(objs, PackObject{ID: h, Type: o.Type, Data: o.Data})
		}
	}
	b.spilling = b.objs
	b.objs, b.order, b.size = nil, nil, 0
	done := make(chan error, 1)
	b.spilled = done
	go func(dir string) {
		var err error
		if len(objs) > 0 {
			_, err = WritePack(dir, objs, zlib.BestSpeed)
		}
		done <- err
	}(b.Spill.GitDir)
	return nil
}

// waitSpill waits for the pack a spill is writing, if any, and lets the
// objects it holds go.
func (b *Buffer) waitSpill() error {
	if b.spilled == nil {
		return nil
	}
	err := <-b.spilled
	b.spilled, b.spilling = nil, nil
	if err != nil {
		return fmt.Errorf("write objects of a large transaction: %w", err)
	}
	if b.Spill.Spilled != nil {
		b.Spill.Spilled()
	}
	return nil
}

// Wait waits for a pack still being written in the background (a
// transaction given up before Flush must not leave a writer behind).
func (b *Buffer) Wait() {
	if b.spilled != nil {
		<-b.spilled
		b.spilled, b.spilling = nil, nil
	}
}
