package gitdb

// SkipsPacks reports whether some pack of the repository is not read by
// db (its index is not version 2 or does not match): only then does a
// caller need another reader to be sure an object is absent.
func (db *DB) SkipsPacks() bool { return db.openPacks().skipped > 0 }
