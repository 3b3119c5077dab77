package discover

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// Result is what Discover found.
type Result struct {
	// Roots are the roots searched, highest priority first.
	Roots []Root
	// Skills are every skill folder found, in canonical order: by qualified
	// name, then by priority (layer, root, folder), so the skill agents use
	// comes first among those sharing a name. A skill whose SKILL.md could
	// not be read or parsed has a nil File and its folder's name.
	Skills []*Skill
	// Diagnostics are findings about the walk itself (unreadable folders,
	// symlinks not followed, misnamed SKILL.md); each skill carries its own.
	Diagnostics []Diagnostic
	// Duplicates are groups of two or more loadable skills whose bodies are
	// identical (see BodyHash), each group in canonical order.
	Duplicates [][]*Skill
}

// Active returns the skills agents would use: loadable and not shadowed.
// Two agents' copies of one name (Claude Code's and Codex's) are both
// active; Preferred keeps one.
func (r *Result) Active() []*Skill {
	var out []*Skill
	for _, s := range r.Skills {
		if s.Loads() && s.ShadowedBy == nil {
			out = append(out, s)
		}
	}
	return out
}

// Preferred returns one active skill per qualified name, the first in
// priority order: what a single reader of every root would use (the
// prompt block), where Active keeps each agent's own copy.
func (r *Result) Preferred() []*Skill {
	var out []*Skill
	seen := map[string]bool{}
	for _, s := range r.Active() {
		if q := s.QualifiedName(); !seen[q] {
			seen[q] = true
			out = append(out, s)
		}
	}
	return out
}

// AllDiagnostics returns the walk's diagnostics and every skill's, sorted
// by file and line.
func (r *Result) AllDiagnostics() []Diagnostic {
	all := append([]Diagnostic(nil), r.Diagnostics...)
	for _, s := range r.Skills {
		all = append(all, s.Diagnostics...)
	}
	SortDiagnostics(all)
	return all
}

// SortDiagnostics orders diagnostics by file, line, then message.
func SortDiagnostics(diags []Diagnostic) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i], diags[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Message < b.Message
	})
}

// Discover walks every root of opts, highest priority first, loads and
// validates the skills it finds, and works out shadowing and duplicates.
// Problems with folders and skills are diagnostics in the result; the error
// is non-nil only when ctx is cancelled.
func Discover(ctx context.Context, opts Options) (*Result, error) {
	roots, diags := opts.roots()
	res, err := DiscoverRoots(ctx, roots, opts)
	if err != nil {
		return nil, err
	}
	res.Diagnostics = append(res.Diagnostics, diags...)
	SortDiagnostics(res.Diagnostics)
	return res, nil
}

// DiscoverRoots is Discover over an explicit list of roots (highest
// priority first); opts supplies the mode, bounds and logger.
func DiscoverRoots(ctx context.Context, roots []Root, opts Options) (*Result, error) {
	log := opts.logger()
	res := &Result{Roots: make([]Root, len(roots))}
	copy(res.Roots, roots)
	seen := &syncSet{m: map[string]bool{}}
	for i := range res.Roots {
		r := &res.Roots[i]
		info, err := os.Stat(r.Path)
		if err != nil {
			log.Debug("skip root", "path", r.Path, "layer", r.Layer, "reason", err)
			if r.listedAt != nil {
				d := *r.listedAt
				d.Message = fmt.Sprintf("listed folder %s cannot be searched: %v; fix or remove the line", r.Path, unwrapPathError(err))
				res.Diagnostics = append(res.Diagnostics, d)
			}
			continue
		}
		if !info.IsDir() {
			res.Diagnostics = append(res.Diagnostics, warningAt(r.Path, 0, "skill root is not a directory; give a folder of skills"))
			continue
		}
		real, err := filepath.EvalSymlinks(r.Path)
		if err != nil {
			res.Diagnostics = append(res.Diagnostics, warningAt(r.Path, 0, "cannot resolve skill root: %v", unwrapPathError(err)))
			continue
		}
		r.Exists = true
		w := newRootWalk(ctx, *r, i, real, opts, seen)
		if err := w.run(); err != nil {
			return nil, fmt.Errorf("discover skills in %s: %w", r.Path, err)
		}
		res.Skills = append(res.Skills, w.skills...)
		res.Diagnostics = append(res.Diagnostics, w.diags...)
	}
	sortByPriority(res.Skills)
	markShadowed(res.Skills)
	res.Duplicates = findDuplicates(res.Skills)
	sortCanonical(res.Skills)
	SortDiagnostics(res.Diagnostics)
	return res, nil
}

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// newRootWalk prepares the walk of root (whose real path is real), the
// index-th root searched; seen is shared by the roots of one discovery.
func newRootWalk(ctx context.Context, root Root, index int, real string, opts Options, seen *syncSet) *rootWalk {
	maxDepth := opts.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	return &rootWalk{
		ctx: ctx, root: root, index: index, realRoot: real, mode: opts.Mode,
		maxDepth: maxDepth, workers: defaultWorkers(opts.Workers), log: opts.logger(), seenSkills: seen,
	}
}

// higherPriority orders skills as agents prefer them: layer, root, folder.
func higherPriority(a, b *Skill) bool {
	if a.Layer != b.Layer {
		return a.Layer < b.Layer
	}
	if a.rootIndex != b.rootIndex {
		return a.rootIndex < b.rootIndex
	}
	return a.RelDir < b.RelDir
}

func sortByPriority(skills []*Skill) {
	sort.SliceStable(skills, func(i, j int) bool { return higherPriority(skills[i], skills[j]) })
}

// sortCanonical orders skills by qualified name, then priority.
func sortCanonical(skills []*Skill) {
	sort.SliceStable(skills, func(i, j int) bool {
		a, b := skills[i], skills[j]
		if qa, qb := a.QualifiedName(), b.QualifiedName(); qa != qb {
			return qa < qb
		}
		return higherPriority(a, b)
	})
}

// markShadowed sets ShadowedBy on every loadable skill that has a
// loadable namesake of higher priority in the same agent's view; skills
// must be in priority order. Skills that do not load shadow nothing.
func markShadowed(skills []*Skill) {
	winners := make(map[string][]*Skill, len(skills))
	for _, s := range skills {
		if !s.Loads() {
			continue
		}
		q := s.QualifiedName()
		for _, w := range winners[q] {
			if sameView(w.Agent, s.Agent) {
				s.ShadowedBy = w
				break
			}
		}
		if s.ShadowedBy == nil {
			winners[q] = append(winners[q], s)
		}
	}
}

// sameView reports whether skills of roots for agents a and b compete for
// one name: they belong to the same agent, or one is in a root every
// agent shares. Claude Code's ~/.claude/skills/x and Codex's
// ~/.agents/skills/x are two agents' copies, neither shadows the other.
func sameView(a, b string) bool { return a == "" || b == "" || a == b }

// findDuplicates groups loadable skills by body hash; skills must be in
// priority order, and each group keeps that order.
func findDuplicates(skills []*Skill) [][]*Skill {
	byHash := map[string][]*Skill{}
	var order []string
	for _, s := range skills {
		if !s.Loads() {
			continue
		}
		if _, ok := byHash[s.BodyHash]; !ok {
			order = append(order, s.BodyHash)
		}
		byHash[s.BodyHash] = append(byHash[s.BodyHash], s)
	}
	var groups [][]*Skill
	for _, h := range order {
		if g := byHash[h]; len(g) > 1 {
			groups = append(groups, g)
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i][0].QualifiedName() < groups[j][0].QualifiedName() })
	return groups
}

// LoadPath loads what a person points at: a SKILL.md file (any file name;
// its folder is the skill), a skill folder, or a tree of skill folders,
// walked as a cli-layer root. A path that does not exist is an error; a
// tree without skills gives an error diagnostic.
func LoadPath(ctx context.Context, path string, opts Options) (*Result, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, unwrapPathError(err))
	}
	if info.IsDir() {
		res, err := DiscoverRoots(ctx, []Root{{Path: abs, Layer: LayerCLI, Label: cliLabel(1)}}, opts)
		if err != nil {
			return nil, err
		}
		if len(res.Skills) == 0 {
			res.Diagnostics = append(res.Diagnostics, errorAt(path, 0, "no skills found: a skill is a folder holding a %s", skillmd.FileName))
		}
		return res, nil
	}
	dir := filepath.Dir(abs)
	res := &Result{Roots: []Root{{Path: dir, Layer: LayerCLI, Label: cliLabel(1), Exists: true}}}
	if filepath.Base(abs) != skillmd.FileName {
		res.Diagnostics = append(res.Diagnostics, warningAt(path, 0, "file is named %s; agents only load a file named %s", filepath.Base(abs), skillmd.FileName))
	}
	data, d := readSkillFile(abs, path)
	var s *Skill
	var diags []Diagnostic
	if d != nil {
		diags = []Diagnostic{*d}
	} else {
		s, diags = newSkill(dir, path, data, opts.Mode)
	}
	if s == nil {
		s = &Skill{Name: filepath.Base(dir), Dir: dir, Diagnostics: diags}
	}
	s.Layer, s.Root, s.RelDir, s.ID = LayerCLI, dir, ".", skillID(res.Roots[0], ".")
	res.Skills = []*Skill{s}
	return res, nil
}
