package plugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/store"
)

// sourceErrorsFile keeps, per plugin, why its source could not be read by
// the last sync: an observation of this machine (its network, its folders),
// so it lives beside the lock and caches, never in the pushed state.
const sourceErrorsFile = "source-errors.json"

// loadSourceErrors reads the last sync's source errors; a missing or
// unreadable file is no errors (it is only a report).
func loadSourceErrors(s *store.Store) map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(s.LocalPath(sourceErrorsFile))
	if err != nil {
		return out
	}
	if err := json.Unmarshal(data, &out); err != nil {
		s.Logger().Debug("source errors unreadable; ignored", "err", err)
		return map[string]string{}
	}
	return out
}

// saveSourceErrors replaces the file (under the store's write lock).
func saveSourceErrors(s *store.Store, errs map[string]string) error {
	if s.IsDryRun() {
		return nil
	}
	p := s.LocalPath(sourceErrorsFile)
	if len(errs) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := json.MarshalIndent(errs, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(p, append(data, '\n'), 0o644)
}

// sourceProblem says why plugin p's source is gone, or "": a folder source
// is checked now, a git source by what the last sync saw.
func sourceProblem(r *store.Reader, p *Plugin, lastSync map[string]string) string {
	if p.Source.Kind == SourceFolder {
		info, err := os.Stat(p.Source.URL)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Sprintf("the source folder %s does not exist", p.Source.URL)
		case err != nil:
			return err.Error()
		case !info.IsDir():
			return fmt.Sprintf("the source %s is not a folder", p.Source.URL)
		}
		return ""
	}
	return lastSync[p.ID]
}

// RecordSourceErrors updates the source errors with what a sync of plugins
// saw: readErrs holds the plugins whose source could not be read.
func RecordSourceErrors(tx *store.Tx, synced []*Plugin, readErrs map[string]string) {
	errs := loadSourceErrors(tx.Store())
	changed := false
	for _, p := range synced {
		if msg, ok := readErrs[p.ID]; ok {
			changed = changed || errs[p.ID] != msg
			errs[p.ID] = msg
		} else if _, had := errs[p.ID]; had {
			delete(errs, p.ID)
			changed = true
		}
	}
	if !changed {
		return
	}
	if err := saveSourceErrors(tx.Store(), errs); err != nil {
		tx.Store().Logger().Debug("source errors not saved", "err", err)
	}
}
