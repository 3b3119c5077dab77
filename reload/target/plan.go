package target

import (
	"context"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

// Plan reports what Export would write into each target, writing nothing
// (see [reload.Plan]): export --dry-run, and what sync --dry-run and
// check say export would do afterwards.
func Plan(ctx context.Context, s *store.Store, targets []Target, opts Options) ([]Exported, error) {
	published, reads, err := publishedReads(ctx, s)
	if err != nil {
		return nil, err
	}
	eo := opts.export(ctx, s)
	eo.Reading = reads.batch
	out := make([]Exported, 0, len(targets))
	for _, t := range targets {
		if t.IsMarketplace() {
			te, _ := exportMarketplace(ctx, s, t, eo, true) // te.Error says it
			out = append(out, te)
			continue
		}
		skills := t.wanted(published)
		te := Exported{Target: t.Name, Dir: t.Dir, Atomic: true, Results: []reload.Result{}}
		rep, err := reload.Plan(ctx, t.Dir, skills, eo)
		if err != nil {
			te.Error = err.Error()
		} else {
			te.Results = rep.Results
		}
		out = append(out, te)
	}
	return out, nil
}
