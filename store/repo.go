package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/lockfile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store/safety"
)

// DefaultFetchTimeout is the connect and idle deadline of each fetch when
// Options.FetchTimeout is zero (see gitfetch.Options).
const DefaultFetchTimeout = gitfetch.DefaultTimeout

// ErrFetchTimeout is matched (errors.Is) by a fetch that a server left
// without an answer past Options.FetchTimeout.
var ErrFetchTimeout = gitfetch.ErrTimeout

// ErrNoStore is returned by Open when the directory holds no store.
var ErrNoStore = errors.New("no store")

// ErrStoreExists is returned by Init when the directory already holds a store.
var ErrStoreExists = errors.New("store already exists")

// ErrLockBusy is matched (errors.Is) when the store lock could not be taken
// within the lock timeout; errors.As to *lockfile.BusyError names the holder.
var ErrLockBusy = lockfile.ErrBusy

// metaDir is the directory, inside the bare repository, holding what is
// skillstore's own and not git's: the lock and derived caches.
const metaDir = "skillstore"

const formatFile = "format"
const formatVersion = "skillstore-store 1\n"

// Options configure a Store.
type Options struct {
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// LockTimeout bounds the wait for the store lock (default 30s).
	LockTimeout time.Duration
	// Actor names who makes changes, as "Name <email>"; the default is
	// git's author identity (see ResolveIdentity), found on first use.
	Actor Signature
	// Now returns the time recorded in commits (default time.Now).
	Now func() time.Time
	// FetchTimeout is the connect and idle deadline of each git fetch
	// (default DefaultFetchTimeout): a server that accepts and never
	// answers fails that source, not the sync.
	FetchTimeout time.Duration
	// FetchJobs bounds the git sources fetched at once, in all and per
	// server (zero: DefaultFetchJobs in all, and a bound per kind of
	// server, see fetch_jobs.go).
	FetchJobs int
	// BeforeGCSwitch, when set, runs after gc has written its pack and
	// before it takes the exclusive lock to switch to it (a test seam:
	// readers and writers run meanwhile).
	BeforeGCSwitch func()
	// AfterPrefetch, when set, runs after sync has fetched its sources and
	// before it takes the exclusive lock to apply them (a test seam: gc
	// runs meanwhile).
	AfterPrefetch func()
	// SourcePolicy, when set, is what sources may be read (see package
	// store/plugins, SourcePolicy): every plugin source, marketplace entry and
	// remote is checked against it before it is read. Nil allows all.
	SourcePolicy SourceChecker
	// Scanner, when set, is the external scanner a policy file names
	// (safety.Scanner): it wins over the store's own setting (see
	// Store.Scanner).
	Scanner *safety.Scanner
	// BeforeWriteLock, when set, runs when a transaction read under the
	// shared lock found something to write, before it takes the exclusive
	// lock to write it (a test seam: another writer goes first, see
	// UpdateIfWrites).
	BeforeWriteLock func()
	// BeforeMergeAhead, when set, runs when a write has planned the large
	// three-way merges it computes before it takes the lock, with no lock
	// held (a test seam: another writer goes meanwhile; see
	// candidates.WriteAhead).
	BeforeMergeAhead func()
}

// SourceChecker decides whether a source may be read, before anything
// reads it: package store/plugins's SourcePolicy. rawURL is the source's
// URL (or path), folder is true for a folder on this machine's disk, and
// market names the marketplace that named the source ("" when none did).
type SourceChecker interface {
	CheckSource(rawURL string, folder bool, market string) error
}

// Store is an open store. Its methods take the store lock themselves, so a
// Store may be used from several goroutines; go-git objects never cross
// calls.
type Store struct {
	dir  string
	opts Options
	log  *slog.Logger
	// dryRun keeps every transaction's writes in dry, in memory, instead
	// of committing them (dryrun.go).
	dryRun bool
	dry    *dryWrites
	risks  *localRiskCache // see localrisk.go; shared by a DryRun view
	// identity resolves the actor once (Identity).
	identity func() Identity
	// scanner reads the external scanner setting once (Scanner).
	scanner func() *safety.Scanner
	// autoLimits reads the store's gc.auto settings once (autoPack).
	autoLimits func() gitdb.AutoLimits
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// newStore is the Store at dir with options o; the actor, unless given, is
// resolved on first use so read-only commands never ask git.
func newStore(dir string, o Options) *Store {
	s := &Store{dir: dir, opts: o, log: o.Logger, risks: &localRiskCache{}}
	given := o.Actor
	s.identity = sync.OnceValue(func() Identity {
		if given.Name != "" {
			return Identity{Signature: given, Known: true}
		}
		return ResolveIdentity(dir)
	})
	s.scanner = sync.OnceValue(s.loadScanner)
	s.autoLimits = sync.OnceValue(func() gitdb.AutoLimits { return gitdb.ReadAutoLimits(dir) })
	return s
}

// Identity is who the store records as making its changes: Options.Actor
// when set, else git's author identity.
func (s *Store) Identity() Identity { return s.identity() }

// Init creates a store at dir: a bare git repository plus skillstore's
// metadata directory. It fails with ErrStoreExists if dir already holds one.
func Init(ctx context.Context, dir string, opts Options) (*Store, error) {
	if isStore(dir) {
		return nil, fmt.Errorf("init %s: %w", dir, ErrStoreExists)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("init %s: directory is not empty and holds no store", dir)
	}
	if _, err := git.PlainInit(dir, true); err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, metaDir), 0o755); err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	// A new store is in the current ref layout (see layoutMarker).
	if err := writeLayoutMarker(dir); err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	// The format file is written last: its presence marks a finished init.
	if err := atomicfile.WriteFile(filepath.Join(dir, metaDir, formatFile), []byte(formatVersion), 0o644); err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	return newStore(dir, opts.withDefaults()), nil
}

// Exists reports whether dir holds a store (Open would find one there).
func Exists(dir string) bool { return isStore(dir) }

func isStore(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, metaDir, formatFile))
	return err == nil
}

// Open opens the store at dir, or fails with ErrNoStore.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	if !isStore(dir) {
		return nil, fmt.Errorf("%w at %s", ErrNoStore, dir)
	}
	return newStore(dir, opts.withDefaults()), nil
}

// Dir is the store directory (the bare repository).
func (s *Store) Dir() string { return s.dir }

// Logger is the store's debug logger (Options.Logger), for packages that
// work on a store, such as store/remote.
func (s *Store) Logger() *slog.Logger { return s.log }

// Options are the options the store was opened with, defaults filled in:
// the fetch bounds and test seams are read by the packages that fetch
// and sync.
func (s *Store) Options() Options { return s.opts }

// FetchOptions are the network deadlines of the store's fetches
// (Options.FetchTimeout), the working folder of the git helper
// processes they run (the store itself, never the caller's folder) and
// the source policy every HTTP redirect must pass (Options.SourcePolicy,
// as a source no marketplace named), for the fetches of plugin sources
// and of pull.
func (s *Store) FetchOptions() gitfetch.Options {
	o := gitfetch.Options{Timeout: s.Options().FetchTimeout, HelperDir: s.Dir()}
	if c := s.Options().SourcePolicy; c != nil {
		o.Allow = func(url string) error { return c.CheckSource(url, false, "") }
	}
	return o
}

// StatCache loads the store's stat cache (see [StatCache]); any error
// yields an empty cache. Save it under the write lock with
// [Tx.SaveStatCache].
func (s *Store) StatCache() *StatCache {
	return LoadStatCache(filepath.Join(s.dir, metaDir, "statcache"))
}

// LocalPath is the path of a file named name in the store's own folder
// ("skillstore" inside the repository): data that belongs to this machine
// and never travels with push, such as the target records.
func (s *Store) LocalPath(name string) string { return filepath.Join(s.dir, metaDir, name) }

func (s *Store) lockPath() string { return filepath.Join(s.dir, metaDir, "lock") }

func (s *Store) lock(ctx context.Context, mode lockfile.Mode) (*lockfile.Lock, error) {
	start := time.Now()
	l, err := lockfile.Acquire(ctx, s.lockPath(), mode, s.opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	s.log.Debug("store lock taken", "mode", mode, "waited", time.Since(start))
	return l, nil
}

// View runs fn with a consistent read-only view of the store, holding the
// shared side of the store lock so no writer changes refs meanwhile. A
// store in ref layout 1 is refused (see checkLayout).
func (s *Store) View(ctx context.Context, fn func(r *Reader) error) error {
	l, err := s.lock(ctx, lockfile.Shared)
	if err != nil {
		return err
	}
	defer l.Release()
	r, err := s.newReader()
	if err != nil {
		return err
	}
	defer r.resetStorage()
	defer r.refs.Close()
	if err := r.checkLayout(); err != nil {
		return err
	}
	r.ctx = ctx
	err = fn(r)
	if r.refErr != nil {
		return r.refErr
	}
	return err
}

// Update runs fn as the store's one writer (exclusive lock). fn queues
// objects, ref updates and state records on tx; when fn returns nil they are
// written in crash-safe order: objects (fsynced), then the state commit's
// objects, then refs, each ref file replaced atomically. When fn returns an
// error nothing is written. A store in ref layout 1 is refused (see
// checkLayout).
func (s *Store) Update(ctx context.Context, fn func(tx *Tx) error) error {
	l, err := s.lock(ctx, lockfile.Exclusive)
	if err != nil {
		return err
	}
	defer l.Release()
	tx, err := s.beginTx()
	if err != nil {
		return err
	}
	defer tx.end()
	if err := tx.run(ctx, fn); err != nil {
		return err
	}
	return tx.finish()
}

// beginTx starts a transaction on the store as it is now; the caller
// holds a side of the lock, and calls end when done with it.
func (s *Store) beginTx() (*Tx, error) {
	r, err := s.newReader()
	if err != nil {
		return nil, err
	}
	if err := r.checkLayout(); err != nil {
		r.refs.Close()
		r.resetStorage()
		return nil, err
	}
	tx := &Tx{Reader: r, pending: &gitdb.Buffer{}, newRefs: map[string]Hash{}, packsBefore: gitdb.PackIDs(s.dir)}
	r.tx = tx
	return tx, nil
}

// end releases what the transaction holds open: a pack still being
// written (before the lock is released), the refs, the object database.
func (tx *Tx) end() {
	tx.pending.Wait()
	tx.refs.Close()
	tx.resetStorage()
}

// run runs fn on tx; a ref that could not be read, fn's error or the
// cancellation of ctx make the transaction write nothing.
func (tx *Tx) run(ctx context.Context, fn func(tx *Tx) error) error {
	tx.ctx = ctx
	err := fn(tx)
	if tx.refErr != nil {
		return tx.refErr
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}

// finish writes what the transaction queued (commit), or on a dry-run
// store keeps it in memory (keepDry).
func (tx *Tx) finish() error {
	if tx.s.dryRun {
		return tx.keepDry()
	}
	return tx.commit()
}

// newReader reads nothing yet: refs are looked up one by one as they are
// needed (all of them only for the commands that list them), so a command
// about one skill does not pay for every ref of the store.
func (s *Store) newReader() (*Reader, error) {
	return &Reader{s: s, refs: gitdb.NewRefReader(s.dir), db: gitdb.Open(s.dir)}, nil
}

// Reader reads one consistent snapshot of the store. It is valid only
// inside the View or Update call that made it.
type Reader struct {
	s *Store
	// ctx is the context of the View or Update the reader serves (see
	// Context).
	ctx  context.Context
	refs *gitdb.RefReader
	// refErr is the first failure to read a ref (a corrupt ref file):
	// the ref reads as absent and View or Update returns this error.
	refErr error
	// db reads loose objects and the packs it can (version 2 indexes), the
	// hot path; st, go-git's view of the packs, reads the rest and is what
	// fetches write into.
	db  *gitdb.DB
	st  *filesystem.Storage
	tx  *Tx // set inside Update: reads see the transaction's own writes
	st8 *stateTree
}

// Store returns the store being read.
func (r *Reader) Store() *Store { return r.s }

// Ref returns the object a ref points at, seeing the transaction's own
// updates inside Update.
func (r *Reader) Ref(name string) (Hash, bool) {
	if r.tx != nil {
		if h, ok := r.tx.newRefs[name]; ok {
			return h, !h.IsZero()
		}
	}
	return r.storedRef(name)
}

// storedRef returns the value a ref has in the repository (as a dry run
// left it), before the transaction's updates.
func (r *Reader) storedRef(name string) (Hash, bool) {
	if h, ok := r.s.dry.ref(name); ok {
		return h, !h.IsZero()
	}
	h, ok, err := r.refs.Lookup(name)
	if err != nil && r.refErr == nil {
		r.refErr = err
	}
	return h, ok
}

// allRefs returns every stored ref (nil after recording a read failure in
// refErr).
func (r *Reader) allRefs() gitdb.Refs {
	all, err := r.refs.All()
	if err != nil && r.refErr == nil {
		r.refErr = err
	}
	return all
}

// RefNames returns the sorted names of the refs starting with prefix.
func (r *Reader) RefNames(prefix string) []string {
	unsaved := r.unsavedRefs()
	if len(unsaved) == 0 {
		return r.allRefs().Names(prefix)
	}
	merged := gitdb.Refs{}
	for k, v := range r.allRefs() {
		merged[k] = v
	}
	for k, v := range unsaved {
		if v.IsZero() {
			delete(merged, k)
		} else {
			merged[k] = v
		}
	}
	return merged.Names(prefix)
}

// storage is go-git's view of the packs, opened on first use and kept (with
// its pack files open) until the View or Update ends.
func (r *Reader) storage() *filesystem.Storage {
	if r.st == nil {
		r.st = filesystem.NewStorageWithOptions(osfs.New(r.s.dir), cache.NewObjectLRU(32<<20), filesystem.Options{KeepDescriptors: true})
	}
	return r.st
}

// resetStorage closes go-git's storage and the object database; the next
// read reopens them and sees packs written meanwhile (both keep the list
// of packs).
func (r *Reader) resetStorage() {
	if r.st != nil {
		r.st.Close()
		r.st = nil
	}
	r.db.Close()
}

// packed reads h from the store's packs; ok is false when no pack that
// gitdb reads holds it. Thin packs' bases come from anywhere r reads.
func (r *Reader) packed(h Hash) (o gitdb.Object, ok bool, err error) {
	return r.db.ReadPacked(h, r.object)
}

// object returns an object's type and content: the transaction's own,
// else a loose or packed one read by gitdb, else go-git's (packs gitdb
// does not read, loose objects in fan-out folders made after gitdb's
// listing).
func (r *Reader) object(h Hash) (gitdb.Object, error) {
	if r.tx != nil {
		if o, ok := r.tx.pending.Get(h); ok {
			return o, nil
		}
	}
	if o, ok := r.s.dry.object(h); ok {
		return o, nil
	}
	if o, err := r.db.ReadLoose(h); err == nil {
		return o, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return gitdb.Object{}, err
	}
	if o, ok, err := r.packed(h); ok && err == nil {
		return o, nil
	}
	// Not in a pack gitdb reads, or unreadable there: go-git has the last
	// word (and its error).
	obj, err := r.storage().EncodedObject(plumbing.AnyObject, toGit(h))
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return gitdb.Object{}, fmt.Errorf("object %s: %w", h, ErrObjectNotFound)
	}
	if err != nil {
		return gitdb.Object{}, fmt.Errorf("object %s: %w", h, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return gitdb.Object{}, fmt.Errorf("object %s: %w", h, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return gitdb.Object{}, fmt.Errorf("object %s: %w", h, err)
	}
	o := gitdb.Object{Type: fromGitType(obj.Type()), Data: data}
	if gitdb.HashObject(o.Type, o.Data) != h {
		return gitdb.Object{}, fmt.Errorf("object %s: %w", h, gitdb.ErrHashMismatch)
	}
	return o, nil
}

// HasObject reports whether the repository (or the transaction) holds h.
func (r *Reader) HasObject(h Hash) bool {
	if r.tx != nil {
		if _, ok := r.tx.pending.Get(h); ok {
			return true
		}
	}
	if _, ok := r.s.dry.object(h); ok {
		return true
	}
	return r.hasStored(h)
}

// hasStored asks go-git only about packs gitdb does not read: opening
// go-git's storage loads every pack index whole, which made each small
// write pay for the size of the store.
func (r *Reader) hasStored(h Hash) bool {
	if r.db.Has(h) {
		return true
	}
	if _, err := os.Stat(gitdb.LoosePath(r.s.dir, h)); err == nil {
		return true // in a fan-out folder made after gitdb listed them
	}
	return r.db.SkipsPacks() && r.storage().HasEncodedObject(toGit(h)) == nil
}

func (r *Reader) typed(h Hash, want gitdb.ObjectType) ([]byte, error) {
	return typedFrom(r, h, want)
}

// Blob returns a blob's content.
func (r *Reader) Blob(h Hash) ([]byte, error) { return r.typed(h, gitdb.BlobObject) }

// Commit returns a decoded commit.
func (r *Reader) Commit(h Hash) (*Commit, error) { return commitFrom(r, h) }

func (r *Reader) tree(h Hash) ([]skillfs.TreeEntry, error) { return treeFrom(r, h) }

// Tx is a write transaction: a Reader that also queues new objects, ref
// updates and state records, written by Update when its function returns.
type Tx struct {
	*Reader
	pending  *gitdb.Buffer
	newRefs  map[string]Hash
	refOrder []string
	state    stateChange
	// written are summaries of versions this transaction wrote, known
	// without reading them back (see noteSummary).
	written map[string]Summary
	// packsBefore are the packs the store held when the transaction
	// began: those it holds at its end beside them are the transaction's,
	// merged into one after it (see autoPack).
	packsBefore []gitdb.ID
}

// WriteObject queues an object and returns its id.
func (tx *Tx) WriteObject(t gitdb.ObjectType, data []byte) Hash { return tx.pending.Add(t, data) }

// writeBlob queues a blob and returns its id.
func (tx *Tx) writeBlob(data []byte) Hash { return tx.pending.Add(gitdb.BlobObject, data) }

// WriteCommit queues a commit object and returns its id (also set in c.Hash).
func (tx *Tx) WriteCommit(c *Commit) Hash {
	c.Hash = tx.pending.Add(gitdb.CommitObject, c.Encode())
	return c.Hash
}

// SetRef queues setting ref name to h; a zero h deletes the ref. Refs are
// written after every object, in the order first set.
func (tx *Tx) SetRef(name string, h Hash) {
	if _, ok := tx.newRefs[name]; !ok {
		tx.refOrder = append(tx.refOrder, name)
	}
	tx.newRefs[name] = h
}

// DeleteRef queues deleting ref name.
func (tx *Tx) DeleteRef(name string) { tx.SetRef(name, ZeroHash) }

// Signature is the actor at the transaction's time.
func (tx *Tx) Signature() Signature {
	sig := tx.s.Identity().Signature
	sig.When = tx.s.opts.Now()
	return sig
}

func (tx *Tx) commit() error {
	if err := tx.commitState(); err != nil {
		return err
	}
	// Summaries of the skills this transaction moves are computed while
	// their objects are still in memory, and saved once the refs are.
	sums := map[string]*Summary{}
	for _, name := range tx.refOrder {
		if skill, ok := SkillNameOfRef(name); ok && !IsPluginParts(skill) {
			if h := tx.newRefs[name]; h.IsZero() {
				sums[skill] = nil
			} else if sum, ok := tx.written[skill]; ok && sum.Commit == h {
				sums[skill] = &sum
			} else if sum, err := tx.summarize(skill, h); err == nil {
				sums[skill] = &sum
			}
		}
	}
	if err := tx.pending.Flush(tx.s.dir, tx.hasStored); err != nil {
		return err
	}
	tx.resetStorage() // a pack may have been added
	var updates []gitdb.RefUpdate
	for _, name := range tx.refOrder {
		old, _ := tx.storedRef(name)
		if old == tx.newRefs[name] {
			continue
		}
		updates = append(updates, gitdb.RefUpdate{Name: name, Old: old, New: tx.newRefs[name]})
	}
	if err := gitdb.ApplyRefUpdates(tx.s.dir, updates); err != nil {
		return err
	}
	for _, u := range updates {
		tx.s.log.Debug("ref updated", "ref", u.Name, "old", ShortHash(u.Old), "new", ShortHash(u.New))
	}
	if len(sums) > 0 {
		tx.s.updateSummaries(sums)
	}
	tx.resetStorage() // no pack stays open while autoPack deletes some
	tx.s.autoPack(tx.ctx, tx.packsBefore)
	return nil
}

// Savepoint notes what the transaction queued so far; the function it
// returns drops every ref update and state change queued since. Objects
// queued since stay, unreferenced: gc prunes them.
func (tx *Tx) Savepoint() (restore func()) {
	refs := maps.Clone(tx.newRefs)
	order := len(tx.refOrder)
	puts := maps.Clone(tx.state.puts)
	subjects, trailers := len(tx.state.subjects), len(tx.state.trailers)
	return func() {
		tx.newRefs = refs
		if tx.newRefs == nil {
			tx.newRefs = map[string]Hash{}
		}
		tx.refOrder = tx.refOrder[:order]
		tx.state.puts = puts
		tx.state.subjects = tx.state.subjects[:subjects]
		tx.state.trailers = tx.state.trailers[:trailers]
	}
}
