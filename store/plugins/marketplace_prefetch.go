package plugins

import (
	"context"
	"os"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/store"
)

// PrefetchEntries adds to pre the repositories a marketplace source's
// entries live in, fetched concurrently with no lock held, so that adding
// a directory of hundreds of plugins costs the round trips of the slowest
// few fetches rather than of all of them. It reads the marketplace from
// pre's fetch of src (or from the folder); when src is no marketplace, or
// cannot be read, it does nothing: the transaction reports that.
func PrefetchEntries(ctx context.Context, s *store.Store, src Source, pre *Prefetched, allowLocal []string) {
	var fsys pluginfmt.PluginFS
	switch {
	case src.Fetched():
		r, ok := pre.lookup(src)
		if !ok || r.err != nil {
			return
		}
		tree, err := r.fetched.FSAt(src.Path)
		if err != nil {
			return
		}
		fsys = tree
	case src.Kind == SourceFolder:
		root, err := os.OpenRoot(src.URL)
		if err != nil {
			return
		}
		defer root.Close()
		fsys = folderscan.NewRootFS(root)
	}
	if !pluginfmt.HasMarketplace(fsys) {
		return
	}
	layout, err := readLayout(fsys, src)
	if err != nil {
		return
	}
	var reqs []FetchRequest
	for _, r := range layout.Remote {
		if es, err := EntrySource(r, allowLocal); err == nil {
			reqs = append(reqs, FetchRequest{Source: es, Marketplace: MarketplaceName(src)})
		}
	}
	pre.merge(Prefetch(ctx, s, reqs, nil))
}
