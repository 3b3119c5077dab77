package gitdb

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DB reads the objects of one repository: loose object files and packs.
// It lists the fan-out folders of objects/ and opens the packs on first
// use and keeps that view, with the pack files open, until Close: a pack
// written meanwhile (by a fetch) is seen after Close, which a DB may be
// used after. A DB is meant for one goroutine at a time, under the
// caller's lock.
type DB struct {
	dir string
	// loose marks the fan-out folders of objects/ that existed when first
	// needed (nil: not listed yet). A packed repository has none, so its
	// reads skip a failing open of a loose file per object.
	loose *[256]bool
	packs *packReader // nil: not opened yet
}

// Open returns the object database of the repository at gitDir. It does
// no I/O: the first read lists the objects folder.
func Open(gitDir string) *DB { return &DB{dir: gitDir} }

// Close releases the pack files and forgets what was listed; the next
// read opens and lists again.
func (db *DB) Close() {
	if db.packs != nil {
		db.packs.close()
		db.packs = nil
	}
	db.loose = nil
}

func (db *DB) openPacks() *packReader {
	if db.packs == nil {
		db.packs = openPacks(db.dir)
	}
	return db.packs
}

// fork returns a DB for another goroutine that reads through db's
// listing and open packs: a pack's reads may run side by side (its base
// cache is locked), and what a fork lists anew on a miss stays its own.
// A fork is never closed; db is, once the forks are done.
func (db *DB) fork() *DB {
	db.mayBeLoose(ID{})
	return &DB{dir: db.dir, loose: db.loose, packs: db.openPacks()}
}

// mayBeLoose reports whether h could be a loose object: its fan-out
// folder existed when objects/ was listed.
func (db *DB) mayBeLoose(h ID) bool {
	if db.loose == nil {
		db.loose = new([256]bool)
		entries, err := os.ReadDir(filepath.Join(db.dir, "objects"))
		if err != nil {
			for i := range db.loose {
				db.loose[i] = true
			}
		}
		for _, e := range entries {
			var b [1]byte
			if n := e.Name(); len(n) == 2 && e.IsDir() {
				if _, err := hex.Decode(b[:], []byte(n)); err == nil {
					db.loose[b[0]] = true
				}
			}
		}
	}
	return db.loose[h[0]]
}

// ReadLoose reads h if it is a loose object. An object that is not loose
// (or whose fan-out folder was made after the listing) gives an error
// matching fs.ErrNotExist.
func (db *DB) ReadLoose(h ID) (Object, error) {
	if !db.mayBeLoose(h) {
		return Object{}, notLooseError{db.dir, h}
	}
	return ReadLoose(db.dir, h)
}

// notLooseError is ReadLoose's answer for an object whose fan-out folder
// was not listed: the common case in a packed store, so its path is made
// only when someone prints it.
type notLooseError struct {
	dir string
	h   ID
}

func (e notLooseError) Error() string {
	return "open " + LoosePath(e.dir, e.h) + ": " + fs.ErrNotExist.Error()
}
func (e notLooseError) Unwrap() error { return fs.ErrNotExist }

// ReadPacked reads h from the packs; ok is false when no pack the DB reads
// holds it. Packs whose index is not version 2, or does not match its
// pack, are not read: the caller may have another reader for them. base
// reads the base of a REF_DELTA that is in no pack (a thin pack's).
// Content that does not hash to h is never returned: the error then
// matches ErrHashMismatch.
func (db *DB) ReadPacked(h ID, base func(ID) (Object, error)) (o Object, ok bool, err error) {
	p, off, ok := db.openPacks().find(h)
	if !ok {
		return Object{}, false, nil
	}
	o, err = p.read(off, base, 0)
	if err == nil && HashObject(o.Type, o.Data) != h {
		err = ErrHashMismatch
	}
	return o, true, err
}

// Read reads h, loose or packed. Errors name the object; a missing one
// matches ErrObjectNotFound. An object missing from the view the DB took
// is looked for once more in a fresh listing (see rescan).
func (db *DB) Read(h ID) (Object, error) {
	o, err := db.read(h)
	if errors.Is(err, ErrObjectNotFound) {
		db.rescan()
		o, err = db.read(h)
	}
	return o, err
}

// rescan forgets the listing of loose objects and opens the packs written
// since the DB listed objects/pack. Another process may have moved an
// object meanwhile: gc packs loose objects into a new pack and deletes
// them, and a fetch writes new packs. Git looks again on a miss for the
// same reason. Packs already open stay open, so a read in progress is
// never cut short.
func (db *DB) rescan() {
	db.loose = nil
	if db.packs != nil {
		db.packs = db.packs.withNewPacks(db.dir)
	}
}

func (db *DB) read(h ID) (Object, error) {
	o, err := db.ReadLoose(h)
	if err == nil {
		return o, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return Object{}, err
	}
	o, ok, err := db.ReadPacked(h, db.Read)
	if !ok {
		return Object{}, fmt.Errorf("object %s: %w", h, ErrObjectNotFound)
	}
	if err != nil {
		return Object{}, fmt.Errorf("object %s: %w", h, err)
	}
	return o, nil
}

// Has reports whether h is in a pack or a loose object.
func (db *DB) Has(h ID) bool {
	if _, _, ok := db.openPacks().find(h); ok {
		return true
	}
	if db.mayBeLoose(h) {
		if _, err := os.Stat(LoosePath(db.dir, h)); err == nil {
			return true
		}
	}
	return false
}

// Size returns the size of object h's content without reading all of it
// (a delta is inflated, not applied). A missing object matches
// ErrObjectNotFound; like Read, it looks once more in a fresh listing.
func (db *DB) Size(h ID) (int64, error) {
	n, err := db.size(h)
	if errors.Is(err, ErrObjectNotFound) {
		db.rescan()
		n, err = db.size(h)
	}
	return n, err
}

func (db *DB) size(h ID) (int64, error) {
	if p, off, ok := db.openPacks().find(h); ok {
		n, err := p.objectSize(off)
		if err != nil {
			return 0, fmt.Errorf("object %s: %w", h, err)
		}
		return n, nil
	}
	if db.mayBeLoose(h) {
		n, err := looseSize(db.dir, h)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
	}
	return 0, fmt.Errorf("object %s: %w", h, ErrObjectNotFound)
}
