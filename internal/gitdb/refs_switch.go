package gitdb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillstore/skillstore/internal/atomicfile"
)

// SwitchRefs writes updates so that they take effect together when
// switchRef (one of the updates, given a new value) moves: a layout change
// of many refs that must never be taken as done while half written. The
// steps, each safe to be killed after:
//
//  1. packed-refs is replaced atomically with the new value of every other
//     update (deleted refs left out);
//  2. those refs' loose files are removed in the order of updates (so a
//     deleted ref that is a directory of a new one goes first);
//  3. switchRef is written as a loose file, atomically.
//
// Until step 3, switchRef reads its old value while other refs may read
// old (a loose file not yet removed) or new values: switchRef says which
// world holds, and its writer must complete a half-applied switch
// idempotently. As with ApplyRefUpdates, a ref whose current value is not
// Old fails the whole update before anything is written.
func SwitchRefs(gitDir string, updates []RefUpdate, switchRef string) error {
	cur := NewRefReader(gitDir)
	defer cur.Close()
	var sw *RefUpdate
	others := make([]RefUpdate, 0, len(updates))
	for i, u := range updates {
		h, _, err := cur.Lookup(u.Name)
		if err != nil {
			return err
		}
		if h != u.Old {
			return fmt.Errorf("ref %s moved from %s to %s during the update", u.Name, short(u.Old), short(h))
		}
		if u.Name == switchRef {
			sw = &updates[i]
		} else {
			others = append(others, u)
		}
	}
	if sw == nil || sw.New.IsZero() {
		return fmt.Errorf("switch refs: no new value for %s among the updates", switchRef)
	}
	if err := updatePackedRefs(gitDir, others, true); err != nil {
		return err
	}
	dirs := map[string]bool{}
	for _, u := range others {
		path := filepath.Join(gitDir, filepath.FromSlash(u.Name))
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("update ref %s: %w", u.Name, err)
		}
		dirs[filepath.Dir(path)] = true
	}
	for dir := range dirs {
		if err := atomicfile.SyncDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	path := filepath.Join(gitDir, filepath.FromSlash(switchRef))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("update ref %s: %w", switchRef, err)
	}
	if err := atomicfile.WriteFile(path, []byte(sw.New.String()+"\n"), 0o644); err != nil {
		return fmt.Errorf("update ref %s: %w", switchRef, err)
	}
	return nil
}
