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
		eo.IsVersion = func(skill string, tree skillfs.ID) bool { return isVersion(ctx, s, skill, tree) }
	}
	return eo
}

// isVersion reports whether some version of skill has tree.
func isVersion(ctx context.Context, s *store.Store, skill string, tree skillfs.ID) bool {
	found := false
	_ = s.View(ctx, func(r *store.Reader) error {
		return r.WalkVersions(skill, func(v store.Version) bool {
			found = v.Tree == tree
			return !found
		})
	})
	return found
}
