package store

import (
	"context"
	"maps"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/lockfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// UpdateIfWrites is [Store.Update] for work that mostly finds nothing to do, such
// as a sync from cron: fn runs under the shared side of the store lock,
// so readers go on meanwhile, and the exclusive side is taken only when fn
// queued something to write, and only to write it. It reports whether it
// wrote.
//
// Between the two locks another writer may have gone first. The
// transaction is written as fn left it only when no ref moved meanwhile
// (fn's reads all start from refs, so it would decide the same again) and
// every object its new objects and refs point at, besides its own, is still
// in the store (gc may have pruned an unreachable object fn found and
// reused). Otherwise fn runs again as the one writer, as Update runs it.
func (s *Store) UpdateIfWrites(ctx context.Context, fn func(tx *Tx) error) (wrote bool, err error) {
	tx, before, err := s.proposeShared(ctx, fn)
	if err != nil {
		return false, err
	}
	defer tx.end()
	if !tx.hasWrites() {
		return false, nil
	}
	if s.dryRun {
		return true, tx.keepDry()
	}
	if s.opts.BeforeWriteLock != nil {
		s.opts.BeforeWriteLock()
	}
	l, err := s.lock(ctx, lockfile.Exclusive)
	if err != nil {
		return false, err
	}
	defer l.Release()
	if s.stillCurrent(tx, before) {
		return true, tx.commit()
	}
	s.log.Debug("the store moved while the lock was shared: running again as the writer")
	return s.updateLocked(ctx, fn)
}

// updateLocked runs fn as Update does, for a caller holding the exclusive
// lock.
func (s *Store) updateLocked(ctx context.Context, fn func(tx *Tx) error) (wrote bool, err error) {
	tx, err := s.beginTx()
	if err != nil {
		return false, err
	}
	defer tx.end()
	if err := tx.run(ctx, fn); err != nil {
		return false, err
	}
	return tx.hasWrites(), tx.commit()
}

// proposeShared runs fn in a transaction under the shared lock and returns
// it unwritten, with every ref as fn saw them; the caller ends it.
func (s *Store) proposeShared(ctx context.Context, fn func(tx *Tx) error) (*Tx, gitdb.Refs, error) {
	l, err := s.lock(ctx, lockfile.Shared)
	if err != nil {
		return nil, nil, err
	}
	defer l.Release()
	tx, err := s.beginTx()
	if err != nil {
		return nil, nil, err
	}
	if err := tx.run(ctx, fn); err != nil {
		tx.end()
		return nil, nil, err
	}
	refs, err := gitdb.ReadRefs(s.dir)
	if err != nil {
		tx.end()
		return nil, nil, err
	}
	return tx, refs, nil
}

// hasWrites reports whether commit would write anything: a state record,
// or a ref that changes.
func (tx *Tx) hasWrites() bool {
	if len(tx.state.puts) > 0 {
		return true
	}
	for name, h := range tx.newRefs {
		if old, _ := tx.storedRef(name); old != h {
			return true
		}
	}
	return false
}

// stillCurrent reports whether tx, made under the shared lock when the
// refs were before, can be written as it is now that the caller holds the
// exclusive lock (see UpdateIfWrites).
func (s *Store) stillCurrent(tx *Tx, before gitdb.Refs) bool {
	now, err := gitdb.ReadRefs(s.dir)
	if err != nil || !maps.Equal(before, now) {
		return false
	}
	tx.resetStorage() // see the objects as they are now, not as fn did
	return tx.pointsAtPresent()
}

// pointsAtPresent reports whether every object the transaction's new refs,
// commits and trees point at is queued or stored.
func (tx *Tx) pointsAtPresent() bool {
	present := func(h Hash) bool {
		_, queued := tx.pending.Get(h)
		return queued || tx.hasStored(h)
	}
	for _, h := range tx.newRefs {
		if !h.IsZero() && !present(h) {
			return false
		}
	}
	for _, h := range tx.pending.IDs() {
		o, ok := tx.pending.Get(h)
		if !ok {
			return false
		}
		for _, ref := range pointsAt(o) {
			if !present(ref) {
				return false
			}
		}
	}
	return true
}

// pointsAt lists the objects o names: a commit's tree and parents, a
// tree's entries (not a gitlink, a commit of another repository). An
// object that does not parse names nothing here; commit checks it.
func pointsAt(o gitdb.Object) []Hash {
	switch o.Type {
	case gitdb.CommitObject:
		c, err := gitdb.ParseCommit(ZeroHash, o.Data)
		if err != nil {
			return nil
		}
		return append([]Hash{c.Tree}, c.Parents...)
	case gitdb.TreeObject:
		entries, err := skillfs.ParseTree(o.Data)
		if err != nil {
			return nil
		}
		var out []Hash
		for _, e := range entries {
			if e.Mode != skillfs.Gitlink {
				out = append(out, e.ID)
			}
		}
		return out
	}
	return nil
}
