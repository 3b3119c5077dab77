package merge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"

	"github.com/skillstore/skillstore/merge/diff3"
)

// A store writes under its exclusive lock, and a three-way merge of large
// files takes a noticeable time even with the diff budget (diff3's
// diffBudget): writers would wait for it. [Ahead] lets a write compute its
// large merges before it takes the lock, as sync classifies before it
// writes:
//
//  1. [Ahead.Write] runs the write once to plan it. Each file merge of
//     MergeTrees given the Ahead (Options.Ahead) that is larger than
//     AheadSize is first merged by diff3.Quick, which costs the reading
//     of the files: when its diffs needed no search (the common case:
//     each side's changes lie apart), the merge itself is as cheap and
//     made at once; otherwise it is noted, and Quick's result stands in
//     (itself a true merge, with coarse conflicts). The write ends with
//     [Ahead.Err], so nothing of it is written when a merge was noted,
//     and a write that noted none was the only run.
//  2. With no lock held, the noted merges are computed.
//  3. The write runs again, under its lock, from the start: it reads the
//     refs again, and a merge of the very same bytes and options comes
//     from the Ahead. One whose inputs changed meanwhile (a writer went
//     between) is computed then, under the lock: correct, only slower.
//
// Small merges are computed where they are asked for, in both runs: they
// cost less than a second run would.

// AheadSize is the size (base, ours and theirs together, in bytes) from
// which a file merge given an Ahead is computed before the lock.
const AheadSize = 64 << 10

// ErrAhead is returned (through the write's own error) by a write whose
// plan found merges to compute before its lock: see [Ahead.Write].
var ErrAhead = errors.New("merges to compute before the store is locked")

// Ahead holds the file merges of one store write. Its zero value is not
// usable: make one with [NewAhead]. It is safe for concurrent use.
type Ahead struct {
	// BeforeMerges, when set, runs once the plan is made, before the
	// merges are computed, with no lock held (a test seam: another writer
	// runs meanwhile).
	BeforeMerges func()

	mu       sync.Mutex
	planning bool
	asked    map[aheadKey]aheadJob
	done     map[aheadKey]aheadResult
}

type aheadKey [sha256.Size]byte

type aheadJob struct {
	fn                 mergeFunc
	base, ours, theirs []byte
	opts               Options
}

type aheadResult struct {
	res *TextResult
	err error
}

// mergeFunc is one of the file merges MergeTrees picks: Text, SkillMD or
// Markdown.
type mergeFunc func(base, ours, theirs []byte, opts Options) (*TextResult, error)

// NewAhead returns an Ahead with nothing computed.
func NewAhead() *Ahead {
	return &Ahead{asked: map[aheadKey]aheadJob{}, done: map[aheadKey]aheadResult{}}
}

// Write runs write, a store write whose merges are given a (see the
// comment above), so that its large merges are computed with no lock
// held: once to plan it, then, if it returned an error wrapping ErrAhead,
// again after computing them. Any other outcome of the first run is the
// outcome. The second run computes what it still lacks in place.
func (a *Ahead) Write(ctx context.Context, write func() error) error {
	a.setPlanning(true)
	err := write()
	a.setPlanning(false)
	if !errors.Is(err, ErrAhead) {
		return err
	}
	if a.BeforeMerges != nil {
		a.BeforeMerges()
	}
	if err := a.run(ctx); err != nil {
		return err
	}
	return write()
}

// Err is ErrAhead when the write's plan noted merges to compute: a write
// given an Ahead returns it before it writes anything (a nil Ahead has
// none).
func (a *Ahead) Err() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.asked) > 0 {
		return ErrAhead
	}
	return nil
}

func (a *Ahead) setPlanning(on bool) {
	a.mu.Lock()
	a.planning = on
	a.mu.Unlock()
}

// run computes the noted merges.
func (a *Ahead) run(ctx context.Context) error {
	a.mu.Lock()
	jobs := a.asked
	a.asked = map[aheadKey]aheadJob{}
	a.mu.Unlock()
	for k, j := range jobs {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := j.fn(j.base, j.ours, j.theirs, j.opts)
		a.mu.Lock()
		a.done[k] = aheadResult{res, err}
		a.mu.Unlock()
	}
	return nil
}

// merge is fn(base, ours, theirs, opts), from a when a computed it ahead;
// while a write is planned, a large merge not computed yet is noted and
// diff3.Quick's stands in. A nil a merges in place.
func (a *Ahead) merge(name string, fn mergeFunc, base, ours, theirs []byte, opts Options) (*TextResult, error) {
	if a == nil || len(base)+len(ours)+len(theirs) < AheadSize {
		return fn(base, ours, theirs, opts)
	}
	k := aheadKeyOf(name, base, ours, theirs, opts)
	a.mu.Lock()
	r, ok := a.done[k]
	planning := a.planning
	a.mu.Unlock()
	if ok {
		return r.res, r.err
	}
	if !planning {
		return fn(base, ours, theirs, opts)
	}
	q, err := diff3.Quick(base, ours, theirs, opts.text())
	if err != nil {
		return nil, err
	}
	if !q.Coarse {
		// The line diffs need no search (each side's changes are apart,
		// as most edits are): the merge costs little more than reading
		// the files, and is made at once.
		return fn(base, ours, theirs, opts)
	}
	a.mu.Lock()
	// Copies: the write's buffers are not ours to keep past it.
	a.asked[k] = aheadJob{fn: fn, base: bytes.Clone(base), ours: bytes.Clone(ours), theirs: bytes.Clone(theirs), opts: opts}
	a.mu.Unlock()
	return &TextResult{Merged: q.Merged, Conflicts: q.Conflicts, Coarse: true}, nil
}

// aheadKeyOf names one file merge by what decides its result: the merge
// (Text, SkillMD or Markdown), its options and the three inputs.
func aheadKeyOf(name string, base, ours, theirs []byte, opts Options) aheadKey {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d %d %d %q %q %q %t %t\x00", name, opts.Style, opts.Favor, opts.MarkerSize,
		opts.Labels.Ours, opts.Labels.Base, opts.Labels.Theirs, opts.PlainText, opts.SkillAware)
	for _, in := range [][]byte{base, ours, theirs} {
		fmt.Fprintf(h, "%d\x00", len(in))
		h.Write(in)
	}
	var k aheadKey
	h.Sum(k[:0])
	return k
}
