package plugins

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/store"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// FetchRequest names a git source to fetch and the commit the store already
// has from it (offered to the server so only new objects travel; zero when
// none).
type FetchRequest struct {
	Source Source
	Have   store.Hash
	// Marketplace is the marketplace that named the source, if one did,
	// for the source policy (CheckSource).
	Marketplace string
}

// fetchKey is what a fetch depends on: the plugins of one marketplace
// (sources differing only in their selector) share one fetch.
type fetchKey struct {
	kind                   SourceKind
	url, ref, tags, sha256 string
}

func keyOf(src Source) fetchKey {
	return fetchKey{kind: src.Kind, url: src.URL, ref: src.Ref, tags: src.Tags, sha256: src.SHA256}
}

type fetchResult struct {
	have    store.Hash // the store's commit of the source when the fetch began
	fetched gitfetch.Fetched
	err     error
}

// Prefetched holds git sources fetched ahead of a write transaction: the
// commits found and their objects, in memory (nothing is written to the
// store by a prefetch, so dropping one leaves nothing behind). A
// transaction that reads sources with it takes each source's result
// from it instead of fetching while it holds the lock, and writes the
// objects of the results it uses. Close releases the store's pack files
// the fetches read, once the results are used.
type Prefetched struct {
	results map[fetchKey]fetchResult
	bases   []*gitfetch.SharedBase
}

// Close releases what the fetches held open; the results stay readable
// (a read opens the packs again). A nil Prefetch may be closed.
func (p *Prefetched) Close() {
	if p == nil {
		return
	}
	for _, b := range p.bases {
		b.Close()
	}
	p.bases = nil
	for _, r := range p.results {
		r.fetched.Release() // a pack kept for the store, not taken
	}
}

// merge takes other's results and what it holds open into p.
func (p *Prefetched) merge(other *Prefetched) {
	for k, r := range other.results {
		p.results[k] = r
	}
	p.bases = append(p.bases, other.bases...)
	other.bases = nil
}

// Reuse makes src's result serve pin too, a source of the same URL and
// path pinned to a commit, when src's fetch was a whole one (nothing
// offered as had) and found that very commit: an install that needs a
// plugin at its locked commit and asks where the lock's ref is now then
// fetches once. It reports whether it did.
func (p *Prefetched) Reuse(pin, src Source) bool {
	r, ok := p.lookup(src)
	if !ok || r.err != nil || !r.have.IsZero() || pin.Kind != SourceGit || pin.URL != src.URL || r.fetched.Commit.String() != pin.Ref {
		return false
	}
	r.fetched.Ref = "" // as a pin's fetch says
	p.results[keyOf(pin)] = r
	return true
}

// Merge takes other's results and what it holds open into p.
func (p *Prefetched) Merge(other *Prefetched) { p.merge(other) }

// Commit returns the commit fetched for src; ok is false when src was not
// fetched or its fetch failed (see Err).
func (p *Prefetched) Commit(src Source) (store.Hash, bool) {
	r, ok := p.lookup(src)
	if !ok || r.err != nil {
		return store.ZeroHash, false
	}
	return r.fetched.Commit, true
}

// Err returns the error of src's fetch, nil when it succeeded or was not
// requested.
func (p *Prefetched) Err(src Source) error {
	r, _ := p.lookup(src)
	return r.err
}

func (p *Prefetched) lookup(src Source) (fetchResult, bool) {
	if p == nil || !src.Fetched() {
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
// progress, when not nil, is called as each fetch ends.
func Prefetch(ctx context.Context, s *store.Store, reqs []FetchRequest, progress func(url string, done, total int)) *Prefetched {
	p := &Prefetched{results: map[fetchKey]fetchResult{}}
	var todo []FetchRequest
	seen := map[fetchKey]bool{}
	for _, r := range reqs {
		if k := keyOf(r.Source); r.Source.Fetched() && !seen[k] {
			seen[k] = true
			todo = append(todo, r)
		}
	}
	if len(todo) == 0 {
		return p
	}
	jobs := s.Options().FetchJobs
	if jobs <= 0 {
		jobs = DefaultFetchJobs
	}
	todo, hostSlots := fetchSchedule(todo, s.Options().FetchJobs)
	// One read-only view of the store's objects serves every fetch (see
	// gitfetch.SharedBase); it is read with no lock held.
	base := gitfetch.NewSharedBase(s.Dir(), filesystem.NewStorageWithOptions(osfs.New(s.Dir()), cache.NewObjectLRU(16<<20), filesystem.Options{}))
	p.bases = append(p.bases, base)
	var mu sync.Mutex
	var wg sync.WaitGroup
	queue := make(chan FetchRequest)
	for range min(jobs, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range queue {
				host, _ := fetchHost(r.Source.URL, s.Options().FetchJobs)
				slot := hostSlots[host]
				slot <- struct{}{}
				res := fetchUnlocked(ctx, s, base, r)
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
func fetchUnlocked(ctx context.Context, s *store.Store, base storage.Storer, r FetchRequest) fetchResult {
	if err := CheckSource(s, r.Source, r.Marketplace); err != nil {
		return fetchResult{have: r.Have, err: err}
	}
	start := time.Now()
	f, err := fetchSource(ctx, base, r.Source, r.Have, s.FetchOptions())
	s.Logger().Debug("prefetched", "source", r.Source.URL, "ref", r.Source.Ref, "took", time.Since(start), "err", err)
	return fetchResult{have: r.Have, fetched: f, err: err}
}

// Fetch fetches a git source, or takes it from pre (nil: none), the
// sources fetched before the lock was taken, and queues the objects it
// brought in the transaction, which writes them durably before any ref
// points at them. have is the store's commit of the source now. Another
// sync may have moved a source's commit since the prefetch read it: the
// prefetched result is still used when it descends from the commit the
// store has now (the objects the fetch brought are written by this
// transaction, and whatever they build on was in the store when the fetch
// read it), and the source is fetched again under the lock when it does
// not (the other sync saw a newer one).
func Fetch(ctx context.Context, tx *store.Tx, pre *Prefetched, src Source, have store.Hash) (gitfetch.Fetched, error) {
	if r, ok := pre.lookup(src); ok {
		if r.err != nil {
			return gitfetch.Fetched{}, r.err
		}
		if err := queueFetched(tx, src, r.fetched); err != nil {
			return gitfetch.Fetched{}, err
		}
		if have == r.have || have.IsZero() || tx.IsAncestor(have, r.fetched.Commit) {
			return r.fetched, nil
		}
		tx.Store().Logger().Debug("source moved since the prefetch: fetching again", "source", src.URL, "have", store.ShortHash(have), "prefetched", store.ShortHash(r.fetched.Commit))
	}
	f, err := fetchSource(ctx, objectsOf(tx.Reader), src, have, tx.Store().FetchOptions())
	if err != nil {
		return gitfetch.Fetched{}, err
	}
	defer f.Release() // its objects stay readable
	if err := queueFetched(tx, src, f); err != nil {
		return gitfetch.Fetched{}, err
	}
	return f, nil
}

func queueFetched(tx *store.Tx, src Source, f gitfetch.Fetched) error {
	// The pack as it came, when it is whole: no object copied into the
	// transaction, none compressed again; once for the plugins sharing it.
	if f.ReceivedIn(tx.Store().Dir()) {
		return nil
	}
	if ok, err := tx.StoreReceived(f.StoreReceived); err != nil || ok {
		if err != nil {
			return fmt.Errorf("fetch %s: %w", src.URL, err)
		}
		return nil
	}
	err := f.NewObjects(func(t gitdb.ObjectType, data []byte) { tx.WriteObject(t, data) })
	if err != nil {
		return fmt.Errorf("fetch %s: %w", src.URL, err)
	}
	return nil
}
