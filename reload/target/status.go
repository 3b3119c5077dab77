package target

import (
	"context"

	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

// SkillStatus is one exported skill of one target.
type SkillStatus struct {
	Target string `json:"target"`
	reload.SkillStatus
	// Outdated is set when the published version differs from the exported
	// one and the folder is clean: the next export updates it.
	Outdated bool `json:"outdated,omitempty"`
}

// Status compares every skill folder export wrote into each target with
// what is on disk, and with the published version.
func Status(ctx context.Context, s *store.Store, targets []Target, opts Options) ([]SkillStatus, error) {
	heads := map[string]store.Hash{}
	active := map[string]store.Hash{}
	err := s.View(ctx, func(r *store.Reader) error {
		infos, err := r.List(false)
		for _, info := range infos {
			heads[info.Name] = info.Tree
			if info.Status == store.StatusActive {
				active[info.Name] = info.Tree
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []SkillStatus
	for _, t := range targets {
		if t.IsMarketplace() {
			// Its folders are plugins, not skills: export reports a plugin
			// folder edited in place as locally-modified and leaves it alone.
			continue
		}
		sts, err := reload.Status(ctx, t.Dir, opts.LockTimeout)
		if err != nil {
			return nil, err
		}
		out = append(out, foreignFolders(t, active, sts)...)
		for _, st := range sts {
			ts := SkillStatus{Target: t.Name, SkillStatus: st}
			if head, ok := heads[st.Skill]; ok && st.State == reload.StateClean && head != st.Exported {
				ts.Outdated = true
			}
			out = append(out, ts)
		}
	}
	return out, nil
}
