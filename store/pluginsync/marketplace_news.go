package pluginsync

import (
	"slices"

	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// MarketplaceNews is a marketplace that lists plugins its previous
// fetched commit did not, and that the store has not added: sync says so
// once, when it first fetches the commit that lists them, with the line
// that adds each ('skillstore plugin add MARKETPLACE#NAME').
type MarketplaceNews struct {
	Marketplace string   `json:"marketplace"`
	Plugins     []string `json:"plugins"`
}

// newsWatch gathers, during a sync, the marketplaces (git sources) whose
// plugins it fetched at a new commit, to compare the plugins they list
// before and after.
type newsWatch struct {
	order  []string
	market map[string]*watchedMarket
}

type watchedMarket struct {
	before, after gitfetch.Fetched
	path, dialect string
}

// note records that p, a plugin of a marketplace in the same repository,
// was at commit before and is now at up's.
func (w *newsWatch) note(p *plugins.Plugin, before store.Hash, up *plugins.Upstream) {
	if p.Marketplace == "" || !p.Source.Fetched() || up == nil || before.IsZero() || up.Fetched.Commit == before {
		return
	}
	if w.market == nil {
		w.market = map[string]*watchedMarket{}
	}
	if _, ok := w.market[p.Marketplace]; ok {
		return
	}
	w.order = append(w.order, p.Marketplace)
	w.market[p.Marketplace] = &watchedMarket{before: up.Fetched.At(before), after: up.Fetched, path: p.Source.Path, dialect: p.Source.Dialect}
}

// news lists, for each marketplace noted, the plugins its new commit lists
// and its old one did not, leaving out those the store has (recs). A
// marketplace that cannot be read at either commit gives none: the sync
// of its plugins reports what is wrong with it.
func (w *newsWatch) news(recs []*plugins.Plugin) []MarketplaceNews {
	var out []MarketplaceNews
	for _, m := range w.order {
		wm := w.market[m]
		before, errBefore := marketplaceNames(wm.before, wm.path, wm.dialect)
		after, errAfter := marketplaceNames(wm.after, wm.path, wm.dialect)
		if errBefore != nil || errAfter != nil {
			continue
		}
		var gained []string
		for _, name := range after {
			if !slices.Contains(before, name) && !hasEntry(recs, m, name) {
				gained = append(gained, name)
			}
		}
		if len(gained) > 0 {
			out = append(out, MarketplaceNews{Marketplace: m, Plugins: gained})
		}
	}
	return out
}

// marketplaceNames are the plugins a marketplace lists at a commit.
func marketplaceNames(f gitfetch.Fetched, path, dialect string) ([]string, error) {
	fsys, err := f.FSAt(path)
	if err != nil {
		return nil, err
	}
	if !pluginfmt.HasMarketplace(fsys) {
		return nil, nil
	}
	layout, err := pluginfmt.Read(fsys, pluginfmt.Options{Dialect: pluginfmt.Dialect(dialect)})
	if err != nil {
		return nil, err
	}
	return layout.PluginNames(), nil
}

// hasEntry reports whether the store has a plugin added from marketplace
// m under entry name.
func hasEntry(recs []*plugins.Plugin, m, name string) bool {
	return slices.ContainsFunc(recs, func(p *plugins.Plugin) bool {
		return p.Marketplace == m && (p.Source.Selector == name || p.Name == name || p.ID == name)
	})
}
