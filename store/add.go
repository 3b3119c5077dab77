package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/store/safety"
)

// AddOptions configure Add and Import.
type AddOptions struct {
	// Reason is recorded on every new version.
	Reason string
	// Validation is discover.Lenient (the default, the policy every other
	// way into the store applies) or discover.Strict.
	Validation discover.Mode
	// AllowRisk is the highest risk level accepted; findings above it
	// refuse the version. Its zero value, RiskNone, refuses any finding;
	// the CLI passes DefaultAllowedRisk unless --allow-risk says otherwise.
	AllowRisk safety.RiskLevel
	// Limits cap files; zero means skillfs.DefaultLimits.
	Limits skillfs.Limits
	// Source is recorded as the versions' source. By default a new skill
	// is SourceManaged and an existing one keeps its latest version's
	// source (a local edit of a plugin's skill is still that plugin's).
	Source string
	// As records the one folder given as the managed skill of this name
	// (its SKILL.md's name set to it), or, qualified, onto that existing
	// plugin's skill as Into does.
	As string
	// Into names existing skills (qualified or unique short names) that
	// folders are edited copies of: one folder and one name, that folder
	// goes onto that skill; otherwise each folder goes onto the skill of
	// Into whose short name is its own. See chooseAddName for the choice
	// made without them.
	Into []string
	// intoByName is Into resolved, by short name (set by prepareAll).
	intoByName map[string]string
	// Rewrite, when set, is given the files read from each folder (with
	// their content) and returns the files to record in their place, in
	// path order: another installer's additions taken out before anything
	// is compared, checked or recorded (adopt removes the provenance keys
	// 'gh skill' writes into SKILL.md).
	Rewrite func([]File) []File
}

// AddResult is the outcome for one skill folder.
type AddResult struct {
	Dir  string
	Name string
	// Version is the new version, or the latest one when Unchanged.
	Version Version
	// Unchanged is true when the folder's tree equals the latest version.
	Unchanged bool
	Safety    safety.Report
	// Diagnostics are validation warnings (errors fail the folder).
	Diagnostics []discover.Diagnostic
	// Err is set by Import for a folder that was not recorded.
	Err error
	// DuplicateOf is set when the folder holds the same files as an
	// earlier folder of the same skill: that one is recorded, this one is
	// not (Add and Import take each skill once).
	DuplicateOf string
}

// InvalidSkillError reports a folder whose SKILL.md fails validation.
type InvalidSkillError struct {
	Dir         string
	Diagnostics []discover.Diagnostic
}

func (e *InvalidSkillError) Error() string { return problem.Format(e.Summary(), e.Details()) }

// Summary names the folder.
func (e *InvalidSkillError) Summary() string { return e.Dir + " is not a valid skill" }

// Details are the diagnostics of error severity (warnings do not fail a
// folder and are reported apart).
func (e *InvalidSkillError) Details() []string {
	var out []string
	for _, d := range e.Diagnostics {
		if d.Severity == discover.SeverityError {
			out = append(out, d.String())
		}
	}
	return out
}

// Prepared is a folder checked by [Tx.Prepare] and ready to become a
// version ([Tx.RecordPrepared]).
type Prepared struct {
	AddResult
	files []File
	head  *Version // the latest version, if the skill exists
	// description is SKILL.md's, for the summary of the new version.
	description string
	// tree, when set, is the tree of files, already queued (a bulk write
	// drops files once it is: see writeTreeEarly).
	tree Hash
}

// Files are the folder's files with their content, read back from the
// transaction when a bulk write queued them already (see writeTreeEarly).
func (p *Prepared) Files(r *Reader) ([]File, error) {
	if p.files != nil {
		return p.files, nil
	}
	return r.LoadFiles(p.tree)
}

func (o AddOptions) limits() skillfs.Limits {
	if o.Limits.MaxFiles == 0 {
		return skillfs.DefaultLimits
	}
	return o.Limits
}

// Add records each skill folder in dirs as a new version of its skill when
// its tree differs from the latest version. It is all or nothing: if any
// folder is invalid, rejected or refused, nothing is written and the error
// names every failing folder.
func (s *Store) Add(ctx context.Context, dirs []string, opts AddOptions) ([]AddResult, error) {
	var results []AddResult
	err := s.Update(ctx, func(tx *Tx) error {
		preps, err := tx.Prepare(ctx, dirs, opts)
		if err != nil {
			return err
		}
		var errs []error
		var good, dups []Prepared
		for _, p := range preps {
			switch {
			case p.Err != nil:
				errs = append(errs, p.Err)
			case p.DuplicateOf != "":
				dups = append(dups, p)
			default:
				good = append(good, p)
			}
		}
		if len(errs) > 0 {
			return errors.Join(errs...)
		}
		results, err = tx.RecordPrepared(good, opts)
		for _, d := range dups {
			results = append(results, d.AddResult)
		}
		return err
	})
	return results, err
}

// Import records every skill folder found under root by discover.Locate
// (the walk discovery uses), canonical copies first, like ImportDirs.
// Walk warnings are not returned: the CLI calls Locate and ImportDirs
// itself to print them.
func (s *Store) Import(ctx context.Context, root string, opts AddOptions) ([]AddResult, error) {
	found, _, err := discover.Locate(ctx, root, discover.Options{})
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no skill folders (folders with a %s) under %s", skillmd.FileName, root)
	}
	dirs := make([]string, len(found))
	for i, f := range found {
		dirs[i] = f.Dir
	}
	return s.ImportDirs(ctx, dirs, opts)
}

// ImportDirs records the skill folders dirs in one pass and one
// transaction. Unlike Add, a bad folder does not stop the others: its
// result carries Err, and the error returned is non-nil only when nothing
// could be done at all. When several folders hold one skill, the first
// is taken: give the canonical copy first (discover.Locate's order).
func (s *Store) ImportDirs(ctx context.Context, dirs []string, opts AddOptions) ([]AddResult, error) {
	results := make([]AddResult, 0, len(dirs))
	defer limitMemory()()
	err := s.Update(ctx, func(tx *Tx) error {
		tx.boundMemory()
		preps, err := tx.Prepare(ctx, dirs, opts)
		if err != nil {
			return err
		}
		good := preps[:0] // in place: a bulk import holds one list
		for _, p := range preps {
			if p.Err != nil || p.DuplicateOf != "" {
				results = append(results, p.AddResult)
			} else {
				good = append(good, p)
			}
		}
		recorded, err := tx.RecordPrepared(good, opts)
		results = append(results, recorded...)
		return err
	})
	sort.SliceStable(results, func(i, j int) bool { return results[i].Dir < results[j].Dir })
	return results, err
}

// Prepare scans, validates and checks every folder, using the stat cache
// so unchanged files are not re-read.
func (tx *Tx) Prepare(ctx context.Context, dirs []string, opts AddOptions) ([]Prepared, error) {
	// A few folders are read whole for less than the store-wide caches
	// cost to load and save (they grow with the store): they get an empty
	// stat cache, not saved, and the summaries of their names alone.
	if opts.As != "" && (len(dirs) != 1 || len(opts.Into) > 0) {
		return nil, fmt.Errorf("--as names the skill of one folder (%d given), and cannot be used with --into", len(dirs))
	}
	if err := tx.resolveInto(&opts, dirs); err != nil {
		return nil, err
	}
	few := len(dirs) <= fewFolders
	var cache *StatCache
	var sums map[string]Summary
	if few {
		cache = LoadStatCache("") // empty
		sums = loadSummariesOf(tx.s.summaryPath(), folderNames(dirs))
	} else {
		cache = tx.s.StatCache()
		sums = loadSummaries(tx.s.summaryPath())
	}
	first := map[string]*Prepared{}
	out := make([]Prepared, 0, len(dirs)) // sized once: a bulk import's largest list
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := tx.prepare(ctx, dir, opts, cache, sums)
		if p.Err == nil && tx.pending.Spill != nil {
			if p.Unchanged { // its tree is the latest version's
				p.tree, p.files = p.Version.Tree, nil
			} else {
				tx.writeTreeEarly(&p)
			}
		}
		if p.Err == nil {
			if f, dup := first[p.Name]; dup {
				sameFiles(f, &p)
			} else {
				first[p.Name] = &p
			}
		}
		out = append(out, p)
	}
	if err := intoUnused(opts, out); err != nil {
		return nil, err
	}
	if !few {
		if err := tx.SaveStatCache(cache); err != nil {
			tx.s.log.Debug("stat cache not saved", "err", err)
		}
	}
	return out, nil
}

// sameFiles marks p, a later folder of the skill that f holds, as a
// duplicate when their files are equal and as a failure otherwise.
func sameFiles(f, p *Prepared) {
	a, errA := f.treeHash()
	b, errB := p.treeHash()
	if errA == nil && errB == nil && a == b {
		p.DuplicateOf = f.Dir
		return
	}
	p.Err = fmt.Errorf("%s and %s both hold the skill %q with different files; the first is the canonical copy, add the other on its own if it is the one you want", f.Dir, p.Dir, p.Name)
}

func (tx *Tx) prepare(ctx context.Context, dir string, opts AddOptions, cache *StatCache, sums map[string]Summary) Prepared {
	abs, err := filepath.Abs(dir)
	p := Prepared{AddResult: AddResult{Dir: dir}}
	if err != nil {
		p.Err = err
		return p
	}
	info, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		p.Err = fmt.Errorf("%s: no such folder", dir)
		return p
	}
	if err != nil {
		p.Err = err
		return p
	}
	if !info.IsDir() {
		p.Err = fmt.Errorf("%s is not a folder; add the folder that holds %s", dir, skillmd.FileName)
		return p
	}
	limits := opts.limits()
	files, err := folderscan.Scan(abs, limits, cache)
	if err != nil {
		p.Err = err
		return p
	}
	p.files = files

	// Fast path: the folder name is a skill whose latest tree is this very
	// tree. It was validated and checked when it was recorded.
	folder := filepath.Base(abs)
	if tree, err := TreeHash(files); err == nil && opts.As == "" && len(opts.Into) == 0 && opts.Rewrite == nil {
		if head, ok := tx.Ref(SkillRef(folder)); ok {
			if sum, ok := sums[folder]; ok && sum.Commit == head && sum.Tree == tree {
				p.Name, p.Unchanged = folder, true
				p.Version = Version{Skill: folder, Number: sum.Number, Commit: head, Tree: tree, Risk: sum.Risk, Source: sum.Source}
				return p
			}
		}
	}

	if err := folderscan.LoadData(abs, p.files, limits); err != nil {
		p.Err = err
		return p
	}
	if opts.Rewrite != nil {
		p.files = opts.Rewrite(p.files)
	}
	var skillMD *File
	for i := range p.files {
		if p.files[i].Path == skillmd.FileName {
			skillMD = &p.files[i]
		}
	}
	if skillMD == nil || skillMD.Data == nil {
		p.Err = fmt.Errorf("%s has no %s; a skill folder holds one at its top", dir, skillmd.FileName)
		return p
	}
	display := filepath.Join(dir, skillmd.FileName)
	verdict := discover.Check(display, folder, skillMD.Data, opts.Validation)
	p.Diagnostics = verdict.Diagnostics
	if !verdict.Accepted() {
		p.Err = &InvalidSkillError{Dir: dir, Diagnostics: verdict.Diagnostics}
		return p
	}
	p.Name = verdict.Name
	p.description = verdict.File.Frontmatter.Description
	if err := skillfs.CheckName(p.Name); err != nil {
		p.Err = fmt.Errorf("%s: %w", display, err)
		return p
	}
	if tree, err := TreeHash(p.files); err != nil {
		p.Err = fmt.Errorf("%s: %w", dir, err)
		return p
	} else if err := tx.chooseAddName(&p, opts, tree); err != nil {
		p.Err = err
		return p
	}

	var previous []File
	if head, err := tx.Head(p.Name); err == nil {
		p.head = &head
		tree, terr := TreeHash(p.files)
		if terr == nil && tree == head.Tree {
			p.Unchanged, p.Version = true, head
			return p
		}
		if previous, err = tx.Files(head.Tree); err != nil {
			p.Err = err
			return p
		}
	} else if !errors.As(err, new(*UnknownSkillError)) {
		p.Err = err
		return p
	}
	report, err := safety.CheckUpdate(p.Name, p.files, previous, limits)
	if err != nil {
		p.Err = fmt.Errorf("%s: %w", dir, err)
		return p
	}
	p.Safety = tx.ScanExternal(ctx, p.Name, report, p.files, previous)
	if p.Safety.Risk > opts.AllowRisk {
		p.Err = &safety.RiskRefusedError{Skill: p.Name, Risk: p.Safety.Risk, Allowed: opts.AllowRisk, Findings: p.Safety.Findings}
	}
	return p
}

// RecordPrepared writes a version for every prepared folder that changed.
func (tx *Tx) RecordPrepared(preps []Prepared, opts AddOptions) ([]AddResult, error) {
	out := make([]AddResult, 0, len(preps))
	for _, p := range preps {
		if p.Unchanged {
			out = append(out, p.AddResult)
			continue
		}
		tree := p.tree
		if tree.IsZero() {
			var err error
			if tree, err = tx.WriteTree(p.files); err != nil {
				return nil, fmt.Errorf("%s: %w", p.Dir, err)
			}
		}
		info := VersionInfo{Source: opts.Source, Reason: opts.Reason, Risk: p.Safety.Risk, Findings: p.Safety.Findings}
		if info.Source == "" && p.head != nil {
			// A local edit of a plugin's skill stays that plugin's skill.
			info.Source, info.Plugin = p.head.Source, p.head.Plugin
		}
		v, err := tx.CommitVersion(p.Name, tree, info)
		if err != nil {
			return nil, err
		}
		if err := tx.reviveIfRemoved(p.Name); err != nil {
			return nil, err
		}
		tx.noteSummary(v, p.description)
		p.Version = v
		out = append(out, p.AddResult)
	}
	return out, nil
}
