package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/gitfetch"
)

// DefaultFetchTimeout is the connect and idle deadline of each fetch when
// Options.FetchTimeout is zero (see gitfetch.Options).
const DefaultFetchTimeout = gitfetch.DefaultTimeout

// ErrFetchTimeout is matched (errors.Is) by a fetch that a server left
// without an answer past Options.FetchTimeout.
var ErrFetchTimeout = gitfetch.ErrTimeout

// FetchRequest names a git source to fetch and the commit the store already
// has from it (offered to the server so only new objects travel; zero when
// none).
type FetchRequest struct {
	Source Source
	Have   Hash
	// Marketplace is the marketplace that named the source, if one did,
	// for the source policy (Store.CheckSource).
	Marketplace string
}

// fetchKey is what a fetch depends on: the plugins of one marketplace
// (sources differing only in their selector) share one fetch.
type fetchKey struct{ url, ref string }

func keyOf(src Source) fetchKey { return fetchKey{url: src.URL, ref: src.Ref} }

type fetchResult struct {
	have    Hash // the store's commit of the source when the fetch began
	fetched gitfetch.Fetched
	err     error
}

// Prefetch holds git sources fetched ahead of a write transaction: the
// commits found and their objects, in memory (nothing is written to the
// store by a prefetch, so dropping one leaves nothing behind). A
// transaction given one with [Tx.UsePrefetch] takes each source's result
// from it instead of fetching while it holds the lock, and writes the
// objects of the results it uses. Close releases the store's pack files
// the fetches read, once the results are used.
type Prefetch struct {
	results map[fetchKey]fetchResult
	bases   []*gitfetch.SharedBase
}

// Close releases what the fetches held open; the results stay readable
// (a read opens the packs again). A nil Prefetch may be closed.
func (p *Prefetch) Close() {
	if p == nil {
		return
	}
	for _, b := range p.bases {
		b.Close()
	}
	p.bases = nil
}

// merge takes other's results and what it holds open into p.
func (p *Prefetch) merge(other *Prefetch) {
	for k, r := range other.results {
		p.results[k] = r
	}
	p.bases = append(p.bases, other.bases...)
	other.bases = nil
}

// Commit returns the commit fetched for src; ok is false when src was not
// fetched or its fetch failed (see Err).
func (p *Prefetch) Commit(src Source) (Hash, bool) {
	r, ok := p.lookup(src)
	if !ok || r.err != nil {
		return ZeroHash, false
	}
	return r.fetched.Commit, true
}

// Err returns the error of src's fetch, nil when it succeeded or was not
// requested.
func (p *Prefetch) Err(src Source) error {
	r, _ := p.lookup(src)
	return r.err
}

func (p *Prefetch) lookup(src Source) (fetchResult, bool) {
	if p == nil || src.Kind != SourceGit {
		return fetchResult{}, false
	}
	r, ok := p.results[keyOf(src)]
	return r, ok
}

// Prefetch fetches the git sources of reqs (folder sources are ignored)
// concurrently, at most Options.FetchJobs at once (by default a bound per
// kind of server, see fetch_jobs.go), each within
// Options.FetchTimeout of silence, without taking the store lock: it only
// reads the store's objects, which never change once written. A failed
// fetch is recorded for its source, never stopping the others; only the
// cancellation of ctx ends them all. Sources are fetched once however many
// requests name them.
func (s *Store) Prefetch(ctx context.Context, reqs []FetchRequest) *Prefetch {
	return s.prefetch(ctx, reqs, nil)
}

// prefetch is Prefetch calling progress (when not nil) as each fetch ends.
func (s *Store) prefetch(ctx context.Context, reqs []FetchRequest, progress func(url string, done, total int)) *Prefetch {
	p := &Prefetch{results: map[fetchKey]fetchResult{}}
	var todo []FetchRequest
	seen := map[fetchKey]bool{}
	for _, r := range reqs {
		if k := keyOf(r.Source); r.Source.Kind == SourceGit && !seen[k] {
			seen[k] = true
			todo = append(todo, r)
		}
	}
	if len(todo) == 0 {
		return p
	}
	jobs := s.opts.FetchJobs
	if jobs <= 0 {
		jobs = DefaultFetchJobs
	}
	todo, hostSlots := fetchSchedule(todo, s.opts.FetchJobs)
	// One read-only view of the store's objects serves every fetch (see
	// gitfetch.SharedBase); it is read with no lock held.
	base := gitfetch.NewSharedBase(s.dir, filesystem.NewStorageWithOptions(osfs.New(s.dir), cache.NewObjectLRU(16<<20), filesystem.Options{}))
	p.bases = append(p.bases, base)
	var mu sync.Mutex
	var wg sync.WaitGroup
	queue := make(chan FetchRequest)
	for range min(jobs, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range queue {
				host, _ := fetchHost(r.Source.URL, s.opts.FetchJobs)
				slot := hostSlots[host]
				slot <- struct{}{}
				res := s.fetchUnlocked(ctx, base, r)
				<-slot
				mu.Lock()
				p.results[keyOf(r.Source)] = res
				if progress != nil {
					progress(r.Source.URL, len(p.results), len(todo))
				}
				mu.Unlock()
			}
		}()
	}
	for _, r := range todo {
		queue <- r
	}
	close(queue)
	wg.Wait()
	return p
}

// fetchUnlocked fetches one source over base, a read-only view of the
// store's objects.
func (s *Store) fetchUnlocked(ctx context.Context, base storage.Storer, r FetchRequest) fetchResult {
	if err := s.CheckSource(r.Source, r.Marketplace); err != nil {
		return fetchResult{have: r.Have, err: err}
	}
	start := time.Now()
	f, err := gitfetch.Fetch(ctx, base, r.Source.URL, r.Source.Ref, r.Have, s.fetchOptions())
	s.log.Debug("prefetched", "source", r.Source.URL, "ref", r.Source.Ref, "took", time.Since(start), "err", err)
	return fetchResult{have: r.Have, fetched: f, err: err}
}

func (s *Store) fetchOptions() gitfetch.Options {
	return gitfetch.Options{Timeout: s.opts.FetchTimeout, HelperDir: s.dir}
}

// FetchOptions are the network deadlines of the store's fetches
// (Options.FetchTimeout) and the working folder of the git helper
// processes they run (the store itself, never the caller's folder), for
// package remote's pull.
func (s *Store) FetchOptions() gitfetch.Options { return s.fetchOptions() }

// UsePrefetch makes the transaction take the git sources p holds from it
// instead of fetching them under the lock. Another sync may have moved a
// source's commit since the prefetch read it: the result is still used
// when it descends from the commit the store has now (the objects the
// fetch brought are written by this transaction, and whatever they build
// on was in the store when the fetch read it), and the source is fetched
// again under the lock when it does not (the other sync saw a newer one).
func (tx *Tx) UsePrefetch(p *Prefetch) {
	if p == nil {
		return
	}
	if tx.prefetched == nil {
		tx.prefetched = map[fetchKey]fetchResult{}
	}
	for k, r := range p.results {
		tx.prefetched[k] = r
	}
}

// fetch fetches a git source (or takes it from the prefetched results) and
// queues the objects it brought in the transaction, which writes them
// durably before any ref points at them. have is the store's commit of
// the source now.
func (tx *Tx) fetch(ctx context.Context, src Source, have Hash) (gitfetch.Fetched, error) {
	if r, ok := tx.prefetched[keyOf(src)]; ok {
		if r.err != nil {
			return gitfetch.Fetched{}, r.err
		}
		if err := tx.queueFetched(src, r.fetched); err != nil {
			return gitfetch.Fetched{}, err
		}
		if have == r.have || have.IsZero() || tx.IsAncestor(have, r.fetched.Commit) {
			return r.fetched, nil
		}
		tx.s.log.Debug("source moved since the prefetch: fetching again", "source", src.URL, "have", short(have), "prefetched", short(r.fetched.Commit))
	}
	f, err := gitfetch.Fetch(ctx, txStorer{Storer: tx.storage(), tx: tx}, src.URL, src.Ref, have, tx.s.fetchOptions())
	if err != nil {
		return gitfetch.Fetched{}, err
	}
	if err := tx.queueFetched(src, f); err != nil {
		return gitfetch.Fetched{}, err
	}
	return f, nil
}

func (tx *Tx) queueFetched(src Source, f gitfetch.Fetched) error {
	err := f.NewObjects(func(t gitdb.ObjectType, data []byte) { tx.writeObject(t, data) })
	if err != nil {
		return fmt.Errorf("fetch %s: %w", src.URL, err)
	}
	return nil
}

// prefetchPlugins fetches the git sources of the plugins a sync will read
// (the ids given, else every enabled, unpaused one), reading their records
// and fetched commits under the shared lock, then fetching with no lock
// held. Unknown ids are left for the sync to report.
func (s *Store) prefetchPlugins(ctx context.Context, ids []string, progress func(url string, done, total int)) (*Prefetch, error) {
	var reqs []FetchRequest
	err := s.View(ctx, func(r *Reader) error {
		plugins, err := r.Plugins()
		if err != nil {
			return err
		}
		want := map[string]bool{}
		for _, id := range ids {
			want[id] = true
		}
		for _, p := range plugins {
			if p.Source.Kind != SourceGit || p.Disabled || p.Paused || (len(ids) > 0 && !want[p.ID]) {
				continue
			}
			have, _ := r.Ref(SourceRef(p.ID))
			reqs = append(reqs, FetchRequest{Source: p.Source, Have: have, Marketplace: p.Marketplace})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.prefetch(ctx, reqs, progress), nil
}
