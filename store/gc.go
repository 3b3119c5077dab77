package store

import (
	"context"
	"path/filepath"
	"time"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/lockfile"
)

// DefaultGCGrace is how old an unreachable object must be before gc
// deletes it (git's default prune expiry is two weeks; a store's
// unreachable objects come from crashed writers and purges, so one day).
const DefaultGCGrace = 24 * time.Hour

// GCResult says what gc did.
type GCResult struct {
	gitdb.GCResult
	// Superseded counts the superseded refs dropped: tombstones of
	// candidates no remote holds any more, older than the grace period
	// (see superseded.go).
	Superseded int `json:"superseded_pruned"`
}

// GC packs every reachable object into one delta-compressed pack, packs the
// refs, and deletes loose objects and old packs. Unreachable objects younger
// than grace are kept (as loose objects, with their original time), older
// ones are deleted. First it drops the superseded refs that tell nothing
// any more and whose candidate is older than grace (see superseded.go);
// their objects then go by the same grace, at a later gc.
//
// Readers and writers go on while the pack is written: gc snapshots the
// refs under the shared lock, writes the pack with no store lock held
// (one gc at a time, under a lock of its own), and takes the exclusive
// lock only to switch: put the pack in place, keep what writers made
// reachable meanwhile, pack the refs and delete what the pack replaces.
func (s *Store) GC(ctx context.Context, grace time.Duration) (GCResult, error) {
	var res GCResult
	gl, err := lockfile.Acquire(ctx, filepath.Join(s.dir, metaDir, "gc.lock"), lockfile.Exclusive, s.opts.LockTimeout)
	if err != nil {
		return res, err
	}
	defer gl.Release()
	if err := s.Update(ctx, func(tx *Tx) error {
		res.Superseded = pruneSuperseded(tx, grace, s.opts.Now())
		return nil
	}); err != nil {
		return res, err
	}
	var refs gitdb.Refs
	err = s.View(ctx, func(r *Reader) error {
		refs, err = r.refs.All()
		return err
	})
	if err != nil {
		return res, err
	}
	g, err := gitdb.PrepareGC(ctx, s.dir, refs, grace)
	if g != nil { // it holds what to clean up even when it fails
		defer g.Close()
	}
	if err != nil {
		return res, err
	}
	if s.opts.BeforeGCSwitch != nil {
		s.opts.BeforeGCSwitch()
	}
	err = s.Update(ctx, func(tx *Tx) error {
		current, err := tx.refs.All()
		if err != nil {
			return err
		}
		res.GCResult, err = g.Finish(current)
		tx.resetStorage() // packs changed under go-git's index
		return err
	})
	return res, err
}
