package reload

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Layout of a target's bookkeeping folder, <target>/.skillstore (reached
// only through the target's handle, see book.go):
//
//	exported.json  what export wrote, per skill (tree ID and entries)
//	lock           flock taken by export (exclusive) and status (shared);
//	lock.gate      its gate (see package lockfile)
//	.gitignore     keeps the folder out of a project's git status
//	tmp/           versions being built; anything here after a crash is garbage
//	retired/       replaced or removed versions, kept for a grace period so a
//	               reader that opened the old folder can finish
//	rescued/       folders edited while export switched them that could not be
//	               put back; never deleted by skillstore
const (
	recordFile = "exported.json"
	lockName   = "lock"
	tmpDir     = "tmp"
	retiredDir = "retired"
	rescuedDir = "rescued"
)

// recordVersion is the format version of exported.json.
const recordVersion = 1

// record is exported.json: for each skill export created in the target, the
// tree it last wrote there. Pending is set, before a folder is switched, to
// the tree being written (as the folder will read back: diskView), so
// that after a crash the folder matching either tree is still recognised
// as export's own.
type record struct {
	Version int                     `json:"version"`
	Skills  map[string]*recordEntry `json:"skills"`
	// ignored are the entries readRecord dropped.
	ignored []ignoredEntry
}

// ignoredEntry is an entry of exported.json that names no folder of the
// target: Why is the warning, naming the file.
type ignoredEntry struct {
	Name, Why string
}

// warnings lists why each ignored entry was.
func (r *record) warnings() []string {
	var out []string
	for _, e := range r.ignored {
		out = append(out, e.Why)
	}
	return out
}

type recordEntry struct {
	Tree    skillfs.ID        `json:"tree"`
	Pending skillfs.ID        `json:"pending,omitzero"`
	Files   map[string]string `json:"files"` // path → "<git mode> <blob id>"
	Updated time.Time         `json:"updated"`
	// Origin names the store's skill and version the folder holds when
	// the folder's name or files do not (see Origin).
	Origin
}

func (e *recordEntry) owns(id skillfs.ID) bool {
	return id == e.Tree || (!e.Pending.IsZero() && id == e.Pending)
}

// holds reports whether disk, read from the folder, is what export wrote
// there as e (or was writing: Pending), as this system's folders hold it
// (diskView: on Windows without execute bits).
func (e *recordEntry) holds(disk *Tree) bool {
	return e.owns(disk.ID) || diskView(e.tree()).ID == disk.ID
}

// tree rebuilds the Tree export last wrote from the recorded entries.
func (e *recordEntry) tree() *Tree {
	t := &Tree{ID: e.Tree}
	for p, v := range e.Files {
		mode, blob, _ := strings.Cut(v, " ")
		id, err := skillfs.ParseID(blob)
		if err != nil {
			continue
		}
		kind := skillfs.Regular
		switch mode {
		case "100755":
			kind = skillfs.Executable
		case "120000":
			kind = skillfs.Symlink
		}
		t.Entries = append(t.Entries, skillfs.File{Path: p, Mode: kind, ID: id})
	}
	sort.Slice(t.Entries, func(i, j int) bool { return t.Entries[i].Path < t.Entries[j].Path })
	return t
}

func newRecordEntry(t *Tree, now time.Time) *recordEntry {
	e := &recordEntry{Tree: t.ID, Files: make(map[string]string, len(t.Entries)), Updated: now.UTC()}
	for _, en := range t.Entries {
		e.Files[en.Path] = en.Mode.GitMode() + " " + en.ID.String()
	}
	return e
}

func emptyRecord() *record {
	return &record{Version: recordVersion, Skills: map[string]*recordEntry{}}
}

// readRecord reads target's record without its lock (see Origins). A
// target export never wrote to (no folder, no bookkeeping, no record)
// gives an empty record.
func readRecord(target string) (*record, error) {
	b, err := openBook(target, "", false)
	if errors.Is(err, fs.ErrNotExist) {
		return emptyRecord(), nil
	}
	if err != nil {
		return nil, err
	}
	defer b.close()
	return b.readRecord()
}

// readRecord reads exported.json. An entry whose name is not one plain
// folder name of the target (a path such as ../../victim, a hidden name,
// an empty entry) is dropped, with a warning in the record's ignored: the
// record is in a folder others can write, and export moves and removes
// the folders it names.
func (b *book) readRecord() (*record, error) {
	p := b.dir.Join(recordFile)
	data, err := b.dir.ReadFile(recordFile, safefile.RecordLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return emptyRecord(), nil
	}
	if err != nil {
		return nil, err
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if r.Version != recordVersion {
		return nil, fmt.Errorf("%s: format version %d, this skillstore reads version %d", p, r.Version, recordVersion)
	}
	if r.Skills == nil {
		r.Skills = map[string]*recordEntry{}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Skills)) {
		why := ""
		switch {
		case CheckName(name) != nil:
			why = fmt.Sprintf("%s: entry %q is not one folder name in the target; ignored", p, name)
		case r.Skills[name] == nil:
			why = fmt.Sprintf("%s: entry %q is empty; ignored", p, name)
		default:
			continue
		}
		r.ignored = append(r.ignored, ignoredEntry{Name: name, Why: why})
		delete(r.Skills, name)
	}
	return &r, nil
}

// writeRecord replaces exported.json atomically.
func (b *book) writeRecord(r *record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return b.dir.WriteFile(recordFile, append(data, '\n'), 0o644)
}

// RecordPath is the file in which export records what it wrote in target
// (see [Exported]); a watcher stats it to know when to read it again.
func RecordPath(target string) string {
	return filepath.Join(target, skillfs.BookkeepingDir, recordFile)
}

// Exported returns, for each skill that export created in target, the tree
// ID it last wrote there. A target export never wrote to gives an empty map.
func Exported(target string) (map[string]skillfs.ID, error) {
	r, err := readRecord(target)
	if err != nil {
		return nil, err
	}
	out := make(map[string]skillfs.ID, len(r.Skills))
	for name, e := range r.Skills {
		out[name] = e.Tree
	}
	return out, nil
}
