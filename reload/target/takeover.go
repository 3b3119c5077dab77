package target

import (
	"context"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

// export is the reload options of one export or plan with opts into s's
// targets. With ReplaceLinks, a link to any version of the skill the store
// holds counts as a managed copy, not only one equal to the head.
func (o Options) export(ctx context.Context, s *store.Store) reload.ExportOptions {
	eo := reload.ExportOptions{Logger: o.logger(), LockTimeout: o.LockTimeout, ReplaceLinks: o.ReplaceLinks}
	if o.ReplaceLinks {
		trees := versionTrees(ctx, s)
		eo.IsVersion = func(skill string, tree skillfs.ID) bool { return trees[skill][tree] }
	}
	return eo
}

// versionTrees is the tree of every version of every skill, read before
// export takes a target's lock (never the store lock while holding a
// target's: capture takes them the other way round). Best effort: what
// cannot be read is simply not a known version.
func versionTrees(ctx context.Context, s *store.Store) map[string]map[skillfs.ID]bool {
	out := map[string]map[skillfs.ID]bool{}
	_ = s.View(ctx, func(r *store.Reader) error {
		for _, skill := range r.Skills() {
			trees := map[skillfs.ID]bool{}
			_ = r.WalkVersions(skill, func(v store.Version) bool {
				trees[v.Tree] = true
				return true
			})
			out[skill] = trees
		}
		return nil
	})
	return out
}
