package gitdb

import "fmt"

// Spill lets a Buffer write what it holds into a pack once it holds Bytes
// of object data, and go on queueing: a bulk import then holds one pack's
// worth of objects at a time instead of all of them. A spilled pack is
// written like any other (fsynced, its index in place first) before any
// ref can point at its objects, so a writer killed after a spill leaves
// only unreachable objects, which gc prunes past its grace period.
type Spill struct {
	GitDir string
	Bytes  int
	// Has says which objects the repository holds already (not written).
	Has func(ID) bool
	// Spilled runs after each spill, for readers to see the new pack.
	Spilled func()
}

// SpillBytes is the object data a transaction holds before it spills.
const SpillBytes = 16 << 20

// spill writes the queued objects into the repository and empties the
// buffer; Get no longer returns them (read them from the repository).
func (b *Buffer) spill() error {
	if err := b.flush(b.Spill.GitDir, b.Spill.Has, 1); err != nil {
		return fmt.Errorf("write objects of a large transaction: %w", err)
	}
	if b.Spill.Spilled != nil {
		b.Spill.Spilled()
	}
	return nil
}
