package store

// A dry run answers "what would this do?" with the code that does it: the
// store's every Update runs its function in full — reads, merges, the
// safety check, the objects and refs it would write, queued in memory —
// and then discards the transaction instead of committing it. Nothing is
// written: no object, ref or state record, and none of the machine-local
// caches (the stat cache, the plugin source errors) that writers update.
// Reports and returned versions are what the real run would give.

// DryRun returns a view of s whose writes are all discarded (see above).
// It shares s's directory, lock and options.
func (s *Store) DryRun() *Store {
	c := *s
	c.dryRun = true
	return &c
}

// IsDryRun reports whether s discards its writes.
func (s *Store) IsDryRun() bool { return s.dryRun }

// saveStatCache saves the stat cache unless the store is a dry run.
func (tx *Tx) saveStatCache(cache *StatCache) error {
	if tx.s.dryRun {
		return nil
	}
	return cache.Save()
}
