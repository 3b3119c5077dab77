package store

import (
	"context"
	"path/filepath"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/lockfile"
)

// autoPack keeps a store's packs few after each write, as git's gc
// --auto does, without the cost of a gc: it runs once a transaction's
// refs are written, under the exclusive lock the transaction holds.
//
//   - The packs the transaction added (packs it held beside before: one
//     per fetched plugin of an install, one per batch of an import) are
//     merged into one (gitdb.MergePacks: their entries copied, no delta
//     search), so a write leaves one pack for what it brought.
//   - Past the store's limits, gc.auto loose objects or gc.autoPackLimit
//     packs (git's settings and defaults, read from the store's config
//     file), the loose objects and the smallest packs are merged too
//     (gitdb.AutoPack).
//
// `git -C STORE config gc.auto 0` turns both off, as it turns off git's.
// Nothing runs while a gc does (its lock is tried, never waited for): gc
// lists what it will delete when it starts, and packs everything anyway.
// A failure leaves the store as the transaction wrote it, whose refs are
// written already, so it is logged and the write still succeeds.
func (s *Store) autoPack(ctx context.Context, before []gitdb.ID) {
	if s.dryRun {
		return
	}
	limits := s.autoLimits()
	if limits.Off() {
		return
	}
	had := map[gitdb.ID]bool{}
	for _, id := range before {
		had[id] = true
	}
	var added []gitdb.ID
	for _, id := range gitdb.PackIDs(s.dir) {
		if !had[id] {
			added = append(added, id)
		}
	}
	tooManyPacks := limits.Packs > 0 && len(before)+len(added) > limits.Packs
	if len(added) < 2 && !tooManyPacks && !gitdb.TooManyLoose(s.dir, limits.Loose) {
		return // the common case: no pack to merge, no listing of packs
	}
	gl, err := lockfile.Acquire(ctx, filepath.Join(s.dir, metaDir, "gc.lock"), lockfile.Exclusive, 0)
	if err != nil {
		s.log.Debug("auto pack skipped: a gc runs", "err", err)
		return
	}
	defer gl.Release()
	if len(added) >= 2 {
		res, err := gitdb.MergePacks(ctx, s.dir, added, false)
		if err != nil {
			s.log.Warn("merging the packs of a write failed (the write is done; gc packs them)", "err", err)
			return
		}
		s.log.Debug("packs of the write merged", "packs", res.Packs, "objects", res.Objects, "bytes", res.PackBytes)
	}
	res, ran, err := gitdb.AutoPack(ctx, s.dir, limits)
	if err != nil {
		s.log.Warn("auto pack failed (the write is done; gc packs the store)", "err", err)
		return
	}
	if ran {
		s.log.Debug("auto pack", "packs", res.Packs, "loose", res.Loose, "objects", res.Objects, "bytes", res.PackBytes)
	}
}

// Packs are the packs a store holds at one moment (Store.Packs), for
// MergeNewPacks.
type Packs []gitdb.ID

// Packs lists the store's packs now.
func (s *Store) Packs() Packs { return gitdb.PackIDs(s.dir) }

// MergeNewPacks merges into one the packs the store holds beyond before,
// as each transaction does with its own (see autoPack), for work made of
// several transactions: a non-frozen install adds each plugin in its own.
// It takes the exclusive lock (within the lock timeout); like autoPack it
// never fails the work done, so a busy store is logged and left as it is.
// It is nothing on a dry run or with gc.auto 0.
func (s *Store) MergeNewPacks(ctx context.Context, before Packs) {
	if s.dryRun || s.autoLimits().Off() {
		return
	}
	l, err := s.lock(ctx, lockfile.Exclusive)
	if err != nil {
		s.log.Debug("packs not merged", "err", err)
		return
	}
	defer l.Release()
	s.autoPack(ctx, before)
}
