package store

import (
	"context"
	"time"

	"github.com/skillstore/skillstore/internal/gitdb"
)

// DefaultGCGrace is how old an unreachable object must be before gc
// deletes it (git's default prune expiry is two weeks; a store's
// unreachable objects come from crashed writers and purges, so one day).
const DefaultGCGrace = 24 * time.Hour

// GCResult says what gc did.
type GCResult = gitdb.GCResult

// GC packs every reachable object into one delta-compressed pack, packs the
// refs, and deletes loose objects and old packs. Unreachable objects younger
// than grace are kept (as loose objects, with their original time), older
// ones are deleted. It holds the write lock throughout, so no writer has
// objects in flight.
func (s *Store) GC(ctx context.Context, grace time.Duration) (GCResult, error) {
	var res GCResult
	err := s.Update(ctx, func(tx *Tx) error {
		refs, err := tx.refs.All()
		if err != nil {
			return err
		}
		res, err = gitdb.GC(ctx, tx.s.dir, refs, tx.object, grace)
		tx.resetStorage() // packs changed under go-git's index
		return err
	})
	return res, err
}
