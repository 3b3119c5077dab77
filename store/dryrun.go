package store

import (
	"maps"
	"sync"

	"github.com/skillstore/skillstore/internal/gitdb"
)

// A dry run answers "what would this do?" with the code that does it: the
// store's every Update runs its function in full — reads, merges, the
// safety check, the objects and refs it would write — and then, instead of
// committing, keeps what it wrote in memory (dryWrites). The next View or
// Update of the same dry run reads those writes as if they were committed,
// so a dry run of several steps (sync's capture, then sync, then export)
// sees each step's result exactly as the real run would. Nothing is
// written: no object, ref or state record, and none of the machine-local
// caches (the stat cache, the summaries, the plugin source errors, the
// layout marker) that writers update. Reports and returned versions are
// what the real run would give.

// DryRun returns a view of s whose writes are kept in memory, never on
// disk (see above). It shares s's directory, lock and options; each call
// starts a dry run of its own, which sees none of another's writes.
func (s *Store) DryRun() *Store {
	c := *s
	c.dryRun = true
	c.dry = &dryWrites{refs: map[string]Hash{}}
	return &c
}

// IsDryRun reports whether s keeps its writes in memory (see DryRun).
func (s *Store) IsDryRun() bool { return s.dryRun }

// dryWrites are what the transactions of one dry run wrote: the objects
// each queued, and the refs they set (a zero hash: deleted).
type dryWrites struct {
	mu   sync.Mutex
	objs []*gitdb.Buffer
	refs map[string]Hash
}

// keep takes a finished transaction's objects and refs in.
func (d *dryWrites) keep(objs *gitdb.Buffer, refs map[string]Hash) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.objs = append(d.objs, objs)
	maps.Copy(d.refs, refs)
}

// ref returns the value a dry run gave ref name; ok is false when it
// did not touch it.
func (d *dryWrites) ref(name string) (h Hash, ok bool) {
	if d == nil {
		return ZeroHash, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	h, ok = d.refs[name]
	return h, ok
}

// object returns an object a transaction of the dry run queued.
func (d *dryWrites) object(h Hash) (gitdb.Object, bool) {
	if d == nil {
		return gitdb.Object{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, b := range d.objs {
		if o, ok := b.Get(h); ok {
			return o, true
		}
	}
	return gitdb.Object{}, false
}

// allRefs is a copy of the refs the dry run set (nil when none).
func (d *dryWrites) allRefs() map[string]Hash {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.refs) == 0 {
		return nil
	}
	return maps.Clone(d.refs)
}

// keepDry ends a dry run's transaction: the state commit is made as
// commit would make it, and every object and ref is kept in memory for
// the dry run's next reads.
func (tx *Tx) keepDry() error {
	if err := tx.commitState(); err != nil {
		return err
	}
	tx.s.dry.keep(tx.pending, tx.newRefs)
	return nil
}

// unsavedRefs are the ref updates a reader sees beyond the repository's:
// the dry run's, then the transaction's own (nil when there are none).
func (r *Reader) unsavedRefs() map[string]Hash {
	dry := r.s.dry.allRefs()
	if r.tx == nil || len(r.tx.newRefs) == 0 {
		return dry
	}
	if dry == nil {
		return r.tx.newRefs
	}
	maps.Copy(dry, r.tx.newRefs)
	return dry
}

// SaveStatCache saves the stat cache unless the store is a dry run.
func (tx *Tx) SaveStatCache(cache *StatCache) error {
	if tx.s.dryRun {
		return nil
	}
	return cache.Save()
}
