package store_test

import (
	"context"

	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
)

// The upgrade tests (migrate_test.go) ask these of the packages that
// import store.
func init() {
	store.MigrateTestHooks.Candidates = func(r *store.Reader) ([]string, error) {
		cs, err := candidates.List(r)
		var out []string
		for _, c := range cs {
			out = append(out, c.Skill+" "+string(c.Mode))
		}
		return out, err
	}
	store.MigrateTestHooks.SkillOwner = plugins.SkillOwner
	store.MigrateTestHooks.Sync = func(ctx context.Context, s *store.Store) error {
		_, err := pluginsync.Run(ctx, s, pluginsync.Options{})
		return err
	}
}
