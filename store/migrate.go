package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/lockfile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Ref layout versions. Layout 1 (stores made before namespaced identity)
// kept plugins' skills at refs/heads/skills/NAME, owned through their
// plugin's record, and candidates at refs/heads/candidates/NAME. Layout 2
// gives every namespace a fixed depth (see refs.go and refnames.go). The
// state records the layout at "store/layout" ({"version": 2}); a store
// whose state lacks it is in layout 1.
const (
	LayoutVersion = 2
	layoutRecord  = "store/layout"
)

// layoutRec is the state record of the ref layout.
type layoutRec struct {
	Version int `json:"version"`
}

// UpgradeReport is what upgrading a store's layout did (or would do).
type UpgradeReport struct {
	From int `json:"from"`
	To   int `json:"to"`
	// Upgraded is false when the store was already in the current layout.
	Upgraded bool `json:"upgraded"`
	// Refs lists the refs moved, Records the state records moved.
	Refs    []Move `json:"refs"`
	Records []Move `json:"records"`
}

// Move is one ref or record moved by an upgrade.
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Upgrade brings the store to the current ref layout in place (see
// upgradeLayout). Every command that writes does it first; this is the
// explicit form ('skillstore upgrade'). With the store's dry run nothing is
// written.
func (s *Store) Upgrade(ctx context.Context) (*UpgradeReport, error) {
	l, err := s.lock(ctx, lockfile.Exclusive)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	rep, err := s.upgradeLocked(ctx, s.dryRun)
	return rep, err
}

// upgradeLocked upgrades the layout, the exclusive lock held, as its own
// transaction; dryRun computes the report only.
func (s *Store) upgradeLocked(ctx context.Context, dryRun bool) (*UpgradeReport, error) {
	r, err := s.newReader()
	if err != nil {
		return nil, err
	}
	defer r.resetStorage()
	defer r.refs.Close()
	tx := &Tx{Reader: r, pending: &gitdb.Buffer{}, newRefs: map[string]Hash{}}
	r.tx = tx
	rep, err := tx.upgradeLayout()
	if r.refErr != nil {
		return nil, r.refErr
	}
	if err != nil || !rep.Upgraded || dryRun {
		return rep, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx.switchOnState = true
	if err := tx.commit(); err != nil {
		return nil, fmt.Errorf("upgrade the store's layout: %w", err)
	}
	if err := writeLayoutMarker(s.dir); err != nil {
		s.log.Debug("layout marker not written", "err", err)
	}
	s.log.Debug("store layout upgraded", "from", rep.From, "to", rep.To, "refs", len(rep.Refs), "records", len(rep.Records))
	return rep, nil
}

// layoutVersion reads the layout the store's state records, reading only
// the state commit's top tree: 0 when the store has no state yet.
func (r *Reader) layoutVersion() (int, error) {
	h, ok := r.Ref(StateRef)
	if !ok {
		return 0, nil
	}
	if r.tx != nil {
		if d, ok := r.tx.state.puts[layoutRecord]; ok && d != nil {
			var rec layoutRec
			if _, err := r.Record(layoutRecord, &rec); err != nil {
				return 0, err
			}
			return rec.Version, nil
		}
	}
	return r.LayoutOf(h)
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

// needsUpgrade reports the store's layout and whether it must be upgraded.
// A store without state holds no plugin; it needs an upgrade only for
// candidate or superseded refs of layout 1 (the rare full ref scan).
func (r *Reader) needsUpgrade() (int, bool, error) {
	if hasLayoutMarker(r.s.dir) {
		return LayoutVersion, false, nil
	}
	v, needed, err := r.readLayout()
	if err == nil && !needed && r.tx == nil && !r.s.dryRun {
		_ = writeLayoutMarker(r.s.dir) // a cache: the next command skips the check
	}
	return v, needed, err
}

// The layout marker (skillstore/layout, local, never pushed) caches that
// the repository's refs are in the current layout, so that every command
// pays one stat instead of reading the state (or, in a store without
// state, listing refs). It is written by init and after an upgrade's refs
// and state are written, never before: a store without it is checked.
const layoutMarkerFile = "layout"

func layoutMarker() string { return fmt.Sprintf("%d\n", LayoutVersion) }

func hasLayoutMarker(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, metaDir, layoutMarkerFile))
	return err == nil && string(data) == layoutMarker()
}

func writeLayoutMarker(dir string) error {
	return atomicfile.WriteFile(filepath.Join(dir, metaDir, layoutMarkerFile), []byte(layoutMarker()), 0o644)
}

// readLayout is needsUpgrade without the marker.
func (r *Reader) readLayout() (int, bool, error) {
	v, err := r.layoutVersion()
	if err != nil {
		return 0, false, err
	}
	switch {
	case v >= LayoutVersion:
		return v, false, nil
	case v > 0:
		return v, true, nil
	}
	for _, ref := range r.RefNames(CandidateRefPrefix) {
		if _, ok := CandidateNameOfRef(ref); !ok {
			return 1, true, nil
		}
	}
	for _, ref := range r.RefNames(SupersededRefPrefix) {
		if _, _, ok := SupersededNameOfRef(ref); !ok {
			return 1, true, nil
		}
	}
	return LayoutVersion, false, nil
}

// upgradeLayout queues the move of a layout 1 store to layout 2:
//   - a plugin's skill: refs/heads/skills/NAME -> refs/heads/plugins/P/NAME,
//     and its record skills/NAME -> plugin-skills/P/NAME;
//   - candidates: refs/heads/candidates/NAME ->
//     refs/heads/candidates/skills/NAME or .../plugins/P/NAME;
//   - superseded candidates: refs/skillstore/superseded/NAME/C ->
//     .../superseded/skills/NAME/C or .../plugins/P/NAME/C;
//   - the state's layout record, written last, in the same commit as the
//     moved records.
//
// It is idempotent over any partial application of itself (a kill while
// the refs were being written leaves the state in layout 1): a layout 1 ref
// still present wins over its layout 2 copy, and refs already moved are
// left alone. Deletions are queued before creations, so a layout 1 ref
// that is a directory of a layout 2 one (a skill named "skills") is gone
// first.
func (tx *Tx) upgradeLayout() (*UpgradeReport, error) {
	from, needed, err := tx.needsUpgrade()
	if err != nil {
		return nil, err
	}
	rep := &UpgradeReport{From: from, To: LayoutVersion, Refs: []Move{}, Records: []Move{}}
	if !needed {
		rep.From = LayoutVersion
		return rep, nil
	}
	plugins, err := tx.layout1Plugins()
	if err != nil {
		return nil, err
	}
	owner := map[string]string{}
	for _, p := range plugins {
		for _, skill := range p.Skills {
			if other, dup := owner[skill]; dup {
				return nil, fmt.Errorf("upgrade: skill %q is listed by plugins %q and %q: fix one plugin record first", skill, other, p.ID)
			}
			owner[skill] = p.ID
		}
	}
	qualify := func(skill string) string { return QualifiedName(owner[skill], skill) }
	var moves []Move
	for _, ref := range tx.RefNames(SkillRefPrefix) {
		skill := strings.TrimPrefix(ref, SkillRefPrefix)
		if owner[skill] != "" && !strings.Contains(skill, "/") {
			moves = append(moves, Move{ref, SkillRef(qualify(skill))})
		}
	}
	for _, ref := range tx.RefNames(CandidateRefPrefix) {
		rest := strings.TrimPrefix(ref, CandidateRefPrefix)
		if rest != "" && !strings.Contains(rest, "/") {
			moves = append(moves, Move{ref, CandidateRef(qualify(rest))})
		}
	}
	for _, ref := range tx.RefNames(SupersededRefPrefix) {
		skill, commit, ok := strings.Cut(strings.TrimPrefix(ref, SupersededRefPrefix), "/")
		h, isHash := ParseHash(commit)
		if ok && isHash && skill != "" {
			moves = append(moves, Move{ref, SupersededRef(qualify(skill), h)})
		}
	}
	values := make([]Hash, len(moves))
	for i, m := range moves {
		values[i], _ = tx.Ref(m.From)
		tx.DeleteRef(m.From)
	}
	for i, m := range moves {
		tx.SetRef(m.To, values[i])
	}
	rep.Refs = moves
	keys, err := tx.RecordKeys("skills")
	if err != nil {
		return nil, err
	}
	for _, skill := range keys {
		if owner[skill] == "" {
			continue
		}
		var rec SkillRecord
		if _, err := tx.Record(skillRecordPath(skill), &rec); err != nil {
			return nil, err
		}
		tx.DeleteRecord(skillRecordPath(skill))
		if err := tx.PutSkillRecord(qualify(skill), rec); err != nil {
			return nil, err
		}
		rep.Records = append(rep.Records, Move{skillRecordPath(skill), skillRecordPath(qualify(skill))})
	}
	sort.Slice(rep.Records, func(i, j int) bool { return rep.Records[i].From < rep.Records[j].From })
	if err := tx.PutRecord(layoutRecord, layoutRec{Version: LayoutVersion}); err != nil {
		return nil, err
	}
	tx.NoteState(fmt.Sprintf("store: ref layout %d -> %d (plugin skills are PLUGIN:NAME)", from, LayoutVersion),
		Trailer{Key: "Layout", Value: fmt.Sprint(LayoutVersion)})
	rep.Upgraded = true
	return rep, nil
}

// layout1Plugin is what the upgrade reads of a plugin record: its id and
// the skills it owns.
type layout1Plugin struct {
	ID     string   `json:"id"`
	Skills []string `json:"skills"`
}

// layout1Plugins reads every plugin record, sorted by id.
func (r *Reader) layout1Plugins() ([]layout1Plugin, error) {
	ids, err := r.RecordKeys("plugins")
	if err != nil {
		return nil, err
	}
	out := make([]layout1Plugin, 0, len(ids))
	for _, id := range ids {
		var p layout1Plugin
		if _, err := r.Record(PluginRecord(id), &p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
