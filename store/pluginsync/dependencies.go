package pluginsync

import (
	"context"
	"slices"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// checkDependencies fills the Dependencies of every plugin of rep whose
// sync noted some to check, from the plugins r holds.
func checkDependencies(r *store.Reader, rep *Report) error {
	for i := range rep.Plugins {
		pr := &rep.Plugins[i]
		if len(pr.deps) == 0 || pr.Error != "" {
			continue
		}
		p, err := plugins.Get(r, pr.Plugin)
		if err != nil {
			continue // not written (a dry run's plan, a failed add)
		}
		if pr.Dependencies, err = plugins.CheckDependencies(r, p, pr.deps, pr.mkt); err != nil {
			return err
		}
	}
	return nil
}

// maxDependencyRounds bounds how deep plugin add follows dependencies of
// dependencies (a chain longer than this in one marketplace is a cycle or
// a mistake; what is left is reported unmet).
const maxDependencyRounds = 8

// addDependencies adds, after the plugins of rep, the dependencies they
// declare from their own marketplace that the store does not have, as
// Claude Code installs them with the plugin: each as SOURCE#NAME of the
// marketplace src, one add (and one transaction) per plugin, so one that
// fails leaves the others. The added plugins' reports join rep, and the
// statuses say which dependencies were added.
func addDependencies(ctx context.Context, s *store.Store, pre *plugins.Prefetched, src plugins.Source, opts AddOptions, rep *Report) error {
	if opts.ID != "" {
		opts.ID = "" // --id names the plugin asked for, not its dependencies
	}
	tried := map[string]bool{}
	added := map[string]bool{}
	for range maxDependencyRounds {
		var want []string
		err := s.View(ctx, func(r *store.Reader) error {
			recs, err := plugins.List(r)
			if err != nil {
				return err
			}
			for _, pr := range rep.Plugins {
				p := findPlugin(recs, pr.Plugin)
				if pr.Error != "" || p == nil || p.Marketplace == "" {
					continue
				}
				for _, d := range pr.deps {
					st := plugins.CheckDependency(recs, p, d, pr.mkt)
					if plugins.SameMarketplace(p, d, pr.mkt) && st.By == "" && !tried[d.Name] {
						tried[d.Name] = true
						want = append(want, d.Name)
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(want) == 0 {
			break
		}
		for _, name := range want {
			dsrc := src
			dsrc.Selector = name
			sub, err := AddFetched(ctx, s, pre, dsrc, opts)
			if err != nil {
				continue // reported unmet below, with why the marketplace cannot give it
			}
			for _, pr := range sub.Plugins {
				added[name] = added[name] || pr.Error == ""
			}
			rep.Plugins = append(rep.Plugins, sub.Plugins...)
		}
	}
	return s.View(ctx, func(r *store.Reader) error {
		if err := checkDependencies(r, rep); err != nil {
			return err
		}
		for i := range rep.Plugins {
			for j := range rep.Plugins[i].Dependencies {
				st := &rep.Plugins[i].Dependencies[j]
				st.Added = st.Unmet == "" && added[st.Name]
			}
		}
		return nil
	})
}

func findPlugin(recs []*plugins.Plugin, id string) *plugins.Plugin {
	i := slices.IndexFunc(recs, func(p *plugins.Plugin) bool { return p.ID == id })
	if i < 0 {
		return nil
	}
	return recs[i]
}
