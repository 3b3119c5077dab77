package app

import (
	"crypto/sha256"
	"encoding/hex"
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

// warningsFile remembers, on this machine, a digest of each long warning
// a command printed last time (export's budget message per target and
// agent), so that a run that would print the same warning again prints
// one line pointing to where it is explained instead.
const warningsFile = "reported-warnings.json"

// repeatedWarning reports whether text is what the command printed under
// key the last time, and records it (not in a dry run, which remembers
// nothing). Best effort: when the file cannot be read or written, the
// warning is printed in full.
func repeatedWarning(s *store.Store, key, text string) bool {
	path := s.LocalPath(warningsFile)
	seen := map[string]string{}
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &seen)
	}
	sum := sha256.Sum256([]byte(text))
	digest := hex.EncodeToString(sum[:])
	if seen[key] == digest {
		return true
	}
	if s.IsDryRun() {
		return false
	}
	seen[key] = digest
	if data, err := json.Marshal(seen); err == nil {
		_ = atomicfile.WriteFile(path, data, 0o644)
	}
	return false
}
