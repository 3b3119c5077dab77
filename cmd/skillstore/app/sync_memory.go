package app

import (
	"encoding/json"
	"os"
	"slices"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// reportedFile remembers, on this machine, the skills that sync's export
// left alone (a foreign folder, a folder edited in the target, a plugin skill
// with no folder of its own in a flat target) and already
// reported, so a cron sync says so once instead of at every run ('skillstore
// status' lists them every time). A skill that is no longer left alone is
// forgotten, so it is reported again if it comes back.
const reportedFile = "sync-left-alone.json"

// dropRepeats removes from exports the left-alone results the previous
// sync already reported, and records the current ones (not in a dry run).
// Recording is best effort: if it fails, the next sync reports them again.
func dropRepeats(s *store.Store, exports []target.Exported) {
	path := s.LocalPath(reportedFile)
	before := map[string]bool{}
	if data, err := os.ReadFile(path); err == nil {
		var keys []string
		if json.Unmarshal(data, &keys) == nil {
			for _, k := range keys {
				before[k] = true
			}
		}
	}
	var now []string
	for i := range exports {
		te := &exports[i]
		te.Results = slices.DeleteFunc(te.Results, func(r reload.Result) bool {
			if r.Action != reload.ActionForeign && r.Action != reload.ActionLocallyModified && r.Action != reload.ActionConflict {
				return false
			}
			key := te.Target + "/" + r.Skill + "/" + string(r.Action)
			now = append(now, key)
			return before[key]
		})
	}
	if s.IsDryRun() {
		return // check says what sync would report, and remembers nothing
	}
	slices.Sort(now)
	if data, err := json.Marshal(now); err == nil {
		_ = atomicfile.WriteFile(path, data, 0o644)
	}
}
