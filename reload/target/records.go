package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillsel"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/tags"
)

// Target is an agent's skills folder that export writes to.
type Target struct {
	Name string `json:"name"`
	// Dir is the folder's absolute path on this machine.
	Dir string `json:"dir"`
	// Skills are the patterns (see package skillsel: NAME, PLUGIN:NAME,
	// a plugin's name, globs, @TAG) of the skills the target holds, its
	// --only; empty means every active skill.
	Skills []string `json:"skills,omitempty"`
	// Except are the patterns of skills the target leaves out (--except),
	// even when Skills selects them.
	Except []string `json:"except,omitempty"`
	// MaxBudget refuses an export whose skills list would go past it
	// (see budget.go): a number of characters, or "agent" for the
	// documented budget of the agents the folder reaches. Empty: none.
	MaxBudget string `json:"max_budget,omitempty"`
	// Project, for a project's target, is the project's root folder; the
	// records file then holds Dir relative to it (see project.go).
	Project string `json:"project,omitempty"`
	// Kind is what export writes into Dir: "" one folder per skill, or a
	// plugin marketplace ([KindClaudeMarketplace]; see marketplace.go).
	Kind string `json:"kind,omitempty"`
	// Marketplace is a marketplace target's name in its catalog (default
	// [DefaultMarketplace]).
	Marketplace string `json:"marketplace,omitempty"`
	// ManagedPlugin, on a marketplace target, is the plugin that carries
	// the managed skills (those no plugin owns); empty leaves them out.
	ManagedPlugin string `json:"managed_plugin,omitempty"`
	// Pins, when set, are the versions the target holds instead of the
	// latest published ones: store name to version tree id, written by a
	// project's lock (see pins.go).
	Pins map[string]string `json:"pins,omitempty"`

	// tags are the store's tags, which @TAG patterns read; List sets
	// them.
	tags skillsel.Tags
	// projectOnly are the plugins exported only to some projects'
	// targets (plugins.ProjectOnly: those a project's lock added); List
	// sets them.
	projectOnly map[string][]string
}

// Selection is the target's choice of skills.
func (t Target) Selection() skillsel.Selection {
	return skillsel.Selection{Only: t.Skills, Except: t.Except}
}

// Wants reports whether the target exports skill (a store name): its
// selection holds it, and the skill's plugin, when a project's lock added
// it, is this project's (see plugins.ProjectOnly).
func (t Target) Wants(skill string) bool {
	return t.Selection().Wants(skill, t.tags) && t.reaches(skill)
}

// reaches reports whether skill may go to t at all: a skill of a plugin
// that a project's lock added goes only to the targets whose folder is in
// that project (however they were added), whatever their selections say.
func (t Target) reaches(skill string) bool {
	plugin, _ := store.SplitName(skill)
	projects, ok := t.projectOnly[plugin]
	if plugin == "" || !ok {
		return true
	}
	return slices.ContainsFunc(projects, func(root string) bool { return Inside(t.Dir, root) })
}

// WithTags returns t with the store's tags, for a Target not read by
// List.
func (t Target) WithTags(tags skillsel.Tags) Target {
	t.tags = tags
	return t
}

// ExceptLeaveOut says what to give instead of '!PATTERN' in --except.
const ExceptLeaveOut = "--except leaves out already: give --except 'PATTERN' (or --only '!PATTERN')"

// CheckSelection reports the first pattern of t's selection that cannot
// be read: an --only pattern may be '!PATTERN' (leave out), an --except
// pattern not (see package skillsel).
func (t Target) CheckSelection() error {
	for _, p := range t.Skills {
		if err := skillsel.Check(p); err != nil {
			return err
		}
	}
	for _, p := range t.Except {
		if err := skillsel.CheckPlain(p, ExceptLeaveOut); err != nil {
			return err
		}
	}
	return nil
}

// CheckSettings reports the first pattern of t's selection, or its
// MaxBudget, that cannot be read.
func (t Target) CheckSettings() error {
	if err := t.CheckSelection(); err != nil {
		return fmt.Errorf("target %s: %w", t.Name, err)
	}
	if _, _, err := ParseMaxBudget(t.MaxBudget); err != nil {
		return fmt.Errorf("target %s: %w", t.Name, err)
	}
	return nil
}

// wanted is the part of the published skills that t exports, each named
// by its folder in t, and the skills that get no folder there (see
// flat.go's collision policy).
func (t Target) wanted(published []reload.Skill) ([]reload.Skill, []reload.Result) {
	var out []reload.Skill
	for _, p := range published {
		if t.Wants(p.Name) {
			out = append(out, p)
		}
	}
	return placeSkills(out)
}

// recordsFile holds the targets of one store, in the store's own folder.
const recordsFile = "targets.json"

// stateKind is where older stores kept target records: in the state ref,
// which push sends to remotes.
const stateKind = "targets"

// UnknownError is returned for a target name with no record.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string { return fmt.Sprintf("no target named %q", e.Name) }

// ExistsError refuses a new target whose name, or folder, another target
// already has.
type ExistsError struct {
	Name string // the new target's name
	// Other is the target that has the name or the folder.
	Other Target
}

func (e *ExistsError) Error() string {
	if e.Other.Name == e.Name {
		return fmt.Sprintf("target %q already exists (%s)", e.Name, e.Other.Dir)
	}
	return fmt.Sprintf("target %q already writes to %s", e.Other.Name, e.Other.Dir)
}

// NestedError refuses a target folder inside another target's folder (or
// holding it): export and capture of one would see the other's skills.
type NestedError struct {
	Name, Dir string
	Other     Target
}

func (e *NestedError) Error() string {
	return fmt.Sprintf("target %s: %s overlaps target %s at %s", e.Name, e.Dir, e.Other.Name, e.Other.Dir)
}

// OverlapError refuses a target folder that contains the store or lies
// inside it: export and capture would read and write the store's files.
type OverlapError struct {
	Name, Dir, Store string
}

func (e *OverlapError) Error() string {
	return fmt.Sprintf("target %s: %s overlaps the store at %s", e.Name, e.Dir, e.Store)
}

// Compiled on first use rather than at start-up, which every command pays.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`) })

// CheckName reports whether name can name a target.
func CheckName(name string) error {
	if !nameRE().MatchString(name) {
		return fmt.Errorf("target name %q: use lowercase letters, digits, '.', '_' and '-'", name)
	}
	return nil
}

// List returns the targets named (every target when names is empty),
// sorted by name. The first call on a store made by an older skillstore
// moves its target records out of the pushed state (see [Migrate]).
func List(ctx context.Context, s *store.Store, names []string) ([]Target, error) {
	var all map[string]Target
	var tagged skillsel.Tags
	var projectOnly map[string][]string
	inState := false
	err := s.View(ctx, func(r *store.Reader) error {
		var err error
		if all, err = read(s); err != nil {
			return err
		}
		if tagged, err = tags.Read(r); err != nil {
			return err
		}
		if projectOnly, err = plugins.ProjectOnly(r); err != nil {
			return err
		}
		keys, err := r.RecordKeys(stateKind)
		inState = len(keys) > 0
		return err
	})
	if err == nil && inState {
		err = s.Update(ctx, func(tx *store.Tx) error {
			all, err = load(tx)
			return err
		})
	}
	if err != nil {
		return nil, err
	}
	for n, t := range all {
		t = t.WithTags(tagged)
		t.projectOnly = projectOnly
		all[n] = t
	}
	if len(names) == 0 {
		return sorted(all), nil
	}
	out := make([]Target, 0, len(names))
	for _, n := range names {
		t, ok := all[n]
		if !ok {
			return nil, &UnknownError{Name: n}
		}
		out = append(out, t)
	}
	return out, nil
}

// Migrate moves target records that an older skillstore kept in the store's
// state (which push sends) into this machine's records file. It is
// idempotent and crash-safe: the file is written before the records leave
// the state, and a record in both places keeps the file's version.
func Migrate(ctx context.Context, s *store.Store) error {
	return s.Update(ctx, func(tx *store.Tx) error {
		_, err := load(tx)
		return err
	})
}

// Add records a new target. Its folder must not overlap the store or
// another target, links followed (a *SharedFolderError), and need not
// exist yet; a project's target must be reached inside its project
// without following a link (an *OutsideProjectError; see folders.go).
func Add(ctx context.Context, s *store.Store, t Target) error {
	if err := CheckName(t.Name); err != nil {
		return err
	}
	if !filepath.IsAbs(t.Dir) {
		return fmt.Errorf("target %s: folder %q is not an absolute path", t.Name, t.Dir)
	}
	if err := t.checkKind(); err != nil {
		return err
	}
	if err := t.CheckSettings(); err != nil {
		return err
	}
	if Inside(t.Dir, s.Dir()) || Inside(s.Dir(), t.Dir) {
		return &OverlapError{Name: t.Name, Dir: t.Dir, Store: s.Dir()}
	}
	return s.Update(ctx, func(tx *store.Tx) error {
		all, err := load(tx)
		if err != nil {
			return err
		}
		if err := t.checkProject(sorted(all)); err != nil {
			return err
		}
		for _, o := range sorted(all) {
			if o.Name == t.Name || o.Dir == t.Dir {
				return &ExistsError{Name: t.Name, Other: o}
			}
			if Inside(t.Dir, o.Dir) || Inside(o.Dir, t.Dir) {
				return &NestedError{Name: t.Name, Dir: t.Dir, Other: o}
			}
			if err := sharedFolder(t, o); err != nil {
				return err
			}
		}
		all[t.Name] = t
		return save(s, all)
	})
}

// Set changes the settings of the target named name (its selection and
// MaxBudget; change may not touch its name, folder or kind) and returns
// the new record.
func Set(ctx context.Context, s *store.Store, name string, change func(*Target)) (Target, error) {
	var t Target
	err := s.Update(ctx, func(tx *store.Tx) error {
		all, err := load(tx)
		if err != nil {
			return err
		}
		old, ok := all[name]
		if !ok {
			return &UnknownError{Name: name}
		}
		t = old
		change(&t)
		t.Name, t.Dir, t.Project, t.Kind = old.Name, old.Dir, old.Project, old.Kind
		if err := t.CheckSettings(); err != nil {
			return err
		}
		all[name] = t
		return save(s, all)
	})
	return t, err
}

// Remove forgets a target and returns its record; its folder is left as
// it is.
func Remove(ctx context.Context, s *store.Store, name string) (Target, error) {
	var t Target
	err := s.Update(ctx, func(tx *store.Tx) error {
		all, err := load(tx)
		if err != nil {
			return err
		}
		var ok bool
		if t, ok = all[name]; !ok {
			return &UnknownError{Name: name}
		}
		delete(all, name)
		return save(s, all)
	})
	return t, err
}

// Inside reports whether p is dir or below it.
func Inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// file is the JSON form of the records file.
type file struct {
	Version int      `json:"version"`
	Targets []Target `json:"targets"`
}

const fileVersion = 1

// load reads this machine's records, first moving any the state still
// holds into the file (within tx, which holds the write lock).
func load(tx *store.Tx) (map[string]Target, error) {
	s := tx.Store()
	all, err := read(s)
	if err != nil {
		return nil, err
	}
	keys, err := tx.RecordKeys(stateKind)
	if err != nil || len(keys) == 0 {
		return all, err
	}
	for _, k := range keys {
		var t Target
		if _, err := tx.Record(stateKind+"/"+k, &t); err != nil {
			return nil, err
		}
		t.Name = k
		if _, ok := all[k]; !ok {
			all[k] = t
		}
	}
	if err := save(s, all); err != nil {
		return nil, err
	}
	for _, k := range keys {
		tx.DeleteRecord(stateKind + "/" + k)
	}
	tx.NoteState("move target records out of the shared state into this machine's " + recordsFile)
	return all, nil
}

func read(s *store.Store) (map[string]Target, error) {
	p := s.LocalPath(recordsFile)
	data, err := safefile.ReadFile(p, safefile.RecordLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Target{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read target records: %w", err)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w (fix or remove the file, then add the targets again)", p, err)
	}
	if f.Version != fileVersion {
		return nil, fmt.Errorf("%s: version %d is not one this skillstore reads (%d)", p, f.Version, fileVersion)
	}
	all := make(map[string]Target, len(f.Targets))
	for _, t := range f.Targets {
		all[t.Name] = t.fromFile()
	}
	return all, nil
}

// save writes the records file; a dry run (store.DryRun) writes nothing,
// so Add, Set and Pin on one check all they check and change nothing.
func save(s *store.Store, all map[string]Target) error {
	if s.IsDryRun() {
		return nil
	}
	targets := sorted(all)
	for i := range targets {
		targets[i] = targets[i].toFile()
	}
	data, err := json.MarshalIndent(file{Version: fileVersion, Targets: targets}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(s.LocalPath(recordsFile), append(data, '\n'), 0o644)
}

func sorted(all map[string]Target) []Target {
	out := make([]Target, 0, len(all))
	for _, t := range all {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
