package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Ref layout versions. Layout 1, written by skillstore before commit
// 91c733b (2026-11-23), kept plugins' skills at refs/heads/skills/NAME,
// owned through their plugin's record, and candidates at
// refs/heads/candidates/NAME. Layout 2 gives every namespace a fixed depth
// (see refs.go and refnames.go). The state records the layout at
// "store/layout" ({"version": 2}); a store whose state lacks it is in
// layout 1. This release reads layout 2 only: a store or remote in layout
// 1 is refused with what to do ([LayoutError], RemoteLayoutError in
// store/remote), since the builds that can upgrade one still exist
// ([UpgradeWith]).
const (
	LayoutVersion = 2
	layoutRecord  = "store/layout"
)

// UpgradeWith names the skillstore builds whose 'skillstore upgrade' moves
// a store in ref layout 1 to layout 2 (and whose push then moves its
// remote's refs): from the commit that introduced layout 2 to the last
// commit before the upgrade was removed.
const UpgradeWith = "a skillstore built from commit 91c733b (2026-11-23) up to commit 733ce55"

// layoutRec is the state record of the ref layout.
type layoutRec struct {
	Version int `json:"version"`
}

// ErrOldLayout is matched (errors.Is) by a [*LayoutError].
var ErrOldLayout = errors.New("store in an older ref layout")

// LayoutError refuses a store in ref layout 1: this release neither reads
// nor upgrades it. The message says how to upgrade it or re-create it.
type LayoutError struct {
	Dir    string
	Layout int
}

func (e *LayoutError) Error() string {
	return fmt.Sprintf("store %s uses ref layout %d, made by skillstore before commit 91c733b (2026-11-23) introduced layout %d; "+
		"upgrade it with the 'skillstore upgrade' of %s, or re-create it (skillstore init, then add its skills and plugins again)",
		e.Dir, e.Layout, LayoutVersion, UpgradeWith)
}

// Is makes a LayoutError match ErrOldLayout.
func (e *LayoutError) Is(target error) bool { return target == ErrOldLayout }

// checkLayout refuses a store in ref layout 1 with a *LayoutError, before
// anything is read or written. The layout marker makes it one stat; a
// store without the marker is checked (see refLayout) and, when current,
// gets the marker back (not on a dry run, which writes nothing).
func (r *Reader) checkLayout() error {
	if hasLayoutMarker(r.s.dir) {
		return nil
	}
	v, err := r.refLayout()
	if err != nil {
		return err
	}
	if v < LayoutVersion {
		return &LayoutError{Dir: r.s.dir, Layout: v}
	}
	if !r.s.dryRun {
		_ = writeLayoutMarker(r.s.dir) // a cache: the next command skips the check
	}
	return nil
}

// refLayout reads the ref layout of the store: the one its state records,
// else (a store without state, which holds no plugin) 1 when a candidate
// or superseded ref has layout 1's shape (the rare full ref scan), else
// the current one.
func (r *Reader) refLayout() (int, error) {
	if h, ok := r.Ref(StateRef); ok {
		return r.LayoutOf(h)
	}
	for _, ref := range r.RefNames(CandidateRefPrefix) {
		if _, ok := CandidateNameOfRef(ref); !ok {
			return 1, nil
		}
	}
	for _, ref := range r.RefNames(SupersededRefPrefix) {
		if _, _, ok := SupersededNameOfRef(ref); !ok {
			return 1, nil
		}
	}
	return LayoutVersion, nil
}

// LayoutOf reads the ref layout the state commit h records (1 when it
// records none: a store made before layout versions), reading only the
// path to that record.
func (r *Reader) LayoutOf(h Hash) (int, error) {
	c, err := r.Commit(h)
	if err != nil {
		return 0, fmt.Errorf("read state: %w", err)
	}
	tree := c.Tree
	dir, file, _ := strings.Cut(layoutRecord+recordExt, "/")
	for _, want := range []string{dir, file} {
		entries, err := r.tree(tree)
		if err != nil {
			return 0, fmt.Errorf("read state: %w", err)
		}
		i := slices.IndexFunc(entries, func(e skillfs.TreeEntry) bool { return e.Name == want })
		if i < 0 {
			return 1, nil
		}
		tree = entries[i].ID
	}
	data, err := r.Blob(tree)
	if err != nil {
		return 0, fmt.Errorf("read state: %w", err)
	}
	var rec layoutRec
	if err := json.Unmarshal(data, &rec); err != nil {
		return 0, fmt.Errorf("state record %s%s does not parse: %w", layoutRecord, recordExt, err)
	}
	return rec.Version, nil
}

// The layout marker (skillstore/layout, local, never pushed) caches that
// the repository's refs are in the current layout, so that every command
// pays one stat instead of reading the state (or, in a store without
// state, listing refs). It is written by init and by the first command
// that finds the store current.
const layoutMarkerFile = "layout"

func layoutMarker() string { return fmt.Sprintf("%d\n", LayoutVersion) }

func hasLayoutMarker(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, metaDir, layoutMarkerFile))
	return err == nil && string(data) == layoutMarker()
}

func writeLayoutMarker(dir string) error {
	return atomicfile.WriteFile(filepath.Join(dir, metaDir, layoutMarkerFile), []byte(layoutMarker()), 0o644)
}
