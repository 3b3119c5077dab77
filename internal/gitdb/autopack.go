package gitdb

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// AutoLimits are the thresholds past which a write packs the repository
// (AutoPack), read as git's gc --auto reads them.
type AutoLimits struct {
	// Loose is gc.auto: loose objects (estimated, see AutoPack) past which
	// they are packed. Zero turns every automatic pack off, as in git.
	Loose int
	// Packs is gc.autoPackLimit: packs past which the small ones are
	// merged. Zero turns this limit off.
	Packs int
}

// DefaultAutoLimits are git's defaults.
var DefaultAutoLimits = AutoLimits{Loose: 6700, Packs: 50}

// Off reports whether automatic packing is turned off (gc.auto 0).
func (l AutoLimits) Off() bool { return l.Loose <= 0 }

// ReadAutoLimits reads gc.auto and gc.autoPackLimit from the config file
// of the repository at gitDir (what `git config gc.auto 0` writes); an
// unset, unreadable or malformed value is git's default.
func ReadAutoLimits(gitDir string) AutoLimits {
	l := DefaultAutoLimits
	data, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil {
		return l
	}
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(strings.NewReader(string(data))).Decode(cfg); err != nil {
		return l
	}
	gc := cfg.Section("gc")
	if n, ok := configInt(gc.Option("auto")); ok {
		l.Loose = n
	}
	if n, ok := configInt(gc.Option("autoPackLimit")); ok {
		l.Packs = n
	}
	return l
}

// configInt parses a git config integer, with git's k, m and g suffixes.
func configInt(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	mul := 1
	switch s[len(s)-1] {
	case 'k', 'K':
		mul = 1 << 10
	case 'm', 'M':
		mul = 1 << 20
	case 'g', 'G':
		mul = 1 << 30
	}
	if mul != 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return n * mul, true
}

// PackIDs lists the packs of the repository at gitDir by the checksum
// they are named by (a pack whose .pack file is there).
func PackIDs(gitDir string) []ID {
	entries, _ := os.ReadDir(filepath.Join(gitDir, "objects", "pack"))
	var ids []ID
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".pack")
		if !ok {
			continue
		}
		if id, ok := parseID(strings.TrimPrefix(name, "pack-")); ok && strings.HasPrefix(name, "pack-") {
			ids = append(ids, id)
		}
	}
	return ids
}

// TooManyLoose estimates, as git does, whether the repository holds more
// than limit loose objects: it counts those of one fan-out folder
// (objects/17) and compares with a 256th of the limit, so the check costs
// one small folder listing whatever the store's size.
func TooManyLoose(gitDir string, limit int) bool {
	if limit <= 0 {
		return false
	}
	entries, _ := os.ReadDir(filepath.Join(gitDir, "objects", "17"))
	per := (limit + 255) / 256
	n := 0
	for _, e := range entries {
		if len(e.Name()) == 38 && !e.IsDir() {
			if _, ok := parseID("17" + e.Name()); ok {
				n++
			}
		}
	}
	return n > per
}

// AutoPack packs the repository at gitDir when it has passed l: more
// than l.Packs packs, or (estimated) more than l.Loose loose objects.
// It does not rewrite the store: it merges the loose objects and the
// smallest packs into one (MergePacks, no delta search), as many of the
// small packs as it takes for the packs left to grow geometrically, each
// at least twice the objects of the one below it (what git's repack
// --geometric=2 keeps). A store of many packs of one size (an import's)
// then ends with one. ok is false when no limit was passed. The caller
// holds the write lock and no gc runs (see MergePacks).
func AutoPack(ctx context.Context, gitDir string, l AutoLimits) (res MergeResult, ok bool, err error) {
	if l.Off() {
		return res, false, nil
	}
	loose := TooManyLoose(gitDir, l.Loose)
	db := Open(gitDir)
	var sizes []packSize
	for _, p := range db.openPacks().packs {
		if id, ok := packFileID(p); ok && !hasKeep(p) {
			sizes = append(sizes, packSize{id, p.n})
		}
	}
	db.Close()
	tooMany := l.Packs > 0 && len(sizes) > l.Packs
	if !loose && !tooMany {
		return res, false, nil
	}
	looseCount := 0
	if loose {
		looseCount = l.Loose // the estimate passed it
	}
	roll := geometricRollUp(sizes, looseCount, 2)
	res, err = MergePacks(ctx, gitDir, roll, loose)
	return res, true, err
}

type packSize struct {
	id ID
	n  int
}

// geometricRollUp chooses the packs to merge so that the packs left, and
// the one merged, form a geometric progression of the given factor by
// object count: sorted by size, everything below the largest pack that
// breaks the progression is merged, and then each next pack as long as
// the merged one (with extra objects, the loose ones) is not factor
// times smaller than it.
func geometricRollUp(packs []packSize, extra int, factor int) []ID {
	sorted := slices.Clone(packs)
	slices.SortStableFunc(sorted, func(a, b packSize) int { return a.n - b.n })
	split := 0
	for i := len(sorted) - 1; i > 0; i-- {
		if sorted[i].n < factor*sorted[i-1].n {
			split = i
			break
		}
	}
	total := extra
	for _, p := range sorted[:split] {
		total += p.n
	}
	for split < len(sorted) && sorted[split].n < factor*total {
		total += sorted[split].n
		split++
	}
	ids := make([]ID, split)
	for i, p := range sorted[:split] {
		ids[i] = p.id
	}
	return ids
}
