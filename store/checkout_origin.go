package store

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/skillstore/skillstore/internal/atomicfile"
)

// Where checked-out folders came from. 'checkout NAME DIR' notes, in a
// local file of the store (not in its history), that DIR holds a version
// of NAME; 'add DIR' then knows that the folder, edited since, came from
// that skill — the one case where "came from" can be known without the
// files still equalling a version. Only the newest checkout of a folder
// counts, and a folder moved elsewhere is not recognised (add --into says
// it then).

const checkoutsFile = "checkouts.json"

// checkoutOrigin is what a checkout noted about one folder.
type checkoutOrigin struct {
	Skill  string `json:"skill"`
	Commit string `json:"commit"`
}

// originKey is the folder's absolute path, symlinks resolved.
func originKey(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

func (s *Store) readCheckouts() map[string]checkoutOrigin {
	m := map[string]checkoutOrigin{}
	if data, err := os.ReadFile(filepath.Join(s.dir, metaDir, checkoutsFile)); err == nil {
		_ = json.Unmarshal(data, &m) // a damaged file only loses the hints
	}
	return m
}

// noteCheckout records that dir now holds version v. It is a hint for
// add: failing to write it fails nothing.
func (s *Store) noteCheckout(dir string, v Version) {
	if s.dryRun {
		return
	}
	m := s.readCheckouts()
	for key := range m {
		if _, err := os.Stat(key); err != nil {
			delete(m, key) // folders since removed
		}
	}
	m[originKey(dir)] = checkoutOrigin{Skill: v.Skill, Commit: v.Commit.String()}
	if data, err := json.MarshalIndent(m, "", "  "); err == nil {
		_ = atomicfile.WriteFile(filepath.Join(s.dir, metaDir, checkoutsFile), data, 0o644)
	}
}

// checkedOutFrom is the skill whose version the last checkout wrote into
// dir, or "".
func (s *Store) checkedOutFrom(dir string) string {
	return s.readCheckouts()[originKey(dir)].Skill
}
