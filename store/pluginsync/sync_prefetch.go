package pluginsync

import (
	"context"
	"runtime"
	"sync"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// folderReads reads the local folder sources of a sync ahead of the plugin
// being synced, on other goroutines. Scanning a plugin's skill folders is
// mostly system calls that need nothing from the transaction, while the
// classification that follows needs the transaction and stays on the
// caller's goroutine; overlapping the two keeps every core busy. When the
// plugin the sync needs next is not read yet, the caller reads the next
// unread plugin itself instead of waiting idle.
//
// Results are taken in plugin order with take; at most folderReadWindow
// plugins are read but not yet taken, which bounds the memory held. stop
// must be called before the stat cache is saved: it waits for every reader
// goroutine.
type folderReads struct {
	srcs    []plugins.Source
	cache   *store.StatCache
	results map[int]chan folderRead
	jobs    chan int      // plugin indexes in order, each read once
	slots   chan struct{} // one per plugin read or being read, not taken yet
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

type folderRead struct {
	up  *plugins.Upstream
	err error
}

// folderReadWindow bounds how far the readers run ahead of the sync.
const folderReadWindow = 8

// readFoldersAhead starts reading the folder sources among plugins that
// will be synced (enabled, unpaused).
func readFoldersAhead(ctx context.Context, recs []*plugins.Plugin, cache *store.StatCache) *folderReads {
	ctx, cancel := context.WithCancel(ctx)
	fr := &folderReads{
		srcs: make([]plugins.Source, len(recs)), cache: cache, results: map[int]chan folderRead{},
		jobs: make(chan int, len(recs)), slots: make(chan struct{}, folderReadWindow), cancel: cancel,
	}
	for i, p := range recs {
		if p.Source.Kind == plugins.SourceFolder && !p.Disabled && !p.Paused {
			fr.srcs[i] = p.Source
			fr.results[i] = make(chan folderRead, 1)
			fr.jobs <- i
		}
	}
	close(fr.jobs)
	// The caller's goroutine reads too while it would wait, so one reader
	// fewer than the cores keeps them all busy.
	workers := min(runtime.GOMAXPROCS(0)-1, 3, len(fr.results))
	for range workers {
		fr.wg.Add(1)
		go func() {
			defer fr.wg.Done()
			for {
				// A slot is taken before a job, so the plugin the sync
				// waits for always gets one.
				select {
				case fr.slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				if !fr.readNext() {
					return
				}
			}
		}()
	}
	return fr
}

// readNext reads the next unread plugin, holding a slot the caller took;
// it reports false (and gives the slot back) when none is left.
func (fr *folderReads) readNext() bool {
	i, ok := <-fr.jobs
	if !ok {
		<-fr.slots
		return false
	}
	up, err := plugins.ReadFolder(fr.srcs[i], fr.cache)
	fr.results[i] <- folderRead{up: up, err: err}
	return true
}

// take returns plugin i's folder read, waiting for it; ok is false when
// plugin i is not read ahead.
func (fr *folderReads) take(ctx context.Context, i int) (up *plugins.Upstream, ok bool, err error) {
	ch, ok := fr.results[i]
	if !ok {
		return nil, false, nil
	}
	for {
		select {
		case r := <-ch:
			<-fr.slots
			return r.up, true, r.err
		default:
		}
		if ctx.Err() != nil {
			return nil, true, ctx.Err()
		}
		// Not read yet: read the next unread plugin (i itself if no
		// reader has started it) rather than wait.
		select {
		case fr.slots <- struct{}{}:
			if fr.readNext() {
				continue
			}
		default:
		}
		select {
		case r := <-ch:
			<-fr.slots
			return r.up, true, r.err
		case <-ctx.Done():
			return nil, true, ctx.Err()
		}
	}
}

// stop ends the readers and waits for them.
func (fr *folderReads) stop() {
	fr.cancel()
	fr.wg.Wait()
}

// prefetchPlugins fetches the git sources of the plugins a sync will read
// (the ids given, else every enabled, unpaused one), reading their records
// and fetched commits under the shared lock, then fetching with no lock
// held. Unknown ids are left for the sync to report.
func prefetchPlugins(ctx context.Context, s *store.Store, ids []string, progress func(url string, done, total int)) (*plugins.Prefetched, error) {
	var reqs []plugins.FetchRequest
	err := s.View(ctx, func(r *store.Reader) error {
		recs, err := plugins.List(r)
		if err != nil {
			return err
		}
		want := map[string]bool{}
		for _, id := range ids {
			want[id] = true
		}
		for _, p := range recs {
			if !p.Source.Fetched() || p.Disabled || p.Paused || (len(ids) > 0 && !want[p.ID]) {
				continue
			}
			have, _ := r.Ref(store.SourceRef(p.ID))
			reqs = append(reqs, plugins.FetchRequest{Source: p.Source, Have: have, Marketplace: p.Marketplace})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return plugins.Prefetch(ctx, s, reqs, progress), nil
}
