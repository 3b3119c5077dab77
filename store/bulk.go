package store

import (
	"math"
	"runtime/debug"

	"github.com/skillstore/skillstore/internal/gitdb"
)

// boundMemory makes the transaction write its objects into a pack each
// time it holds gitdb.SpillBytes of them, instead of holding every object
// until the end: for bulk writes such as import, whose memory would
// otherwise grow with the number of skills. Only for transactions that
// read objects through gitdb alone (not go-git's storage, which keeps the
// list of packs it opened): the hook makes gitdb list the packs again.
func (tx *Tx) boundMemory() {
	if tx.s.dryRun {
		return // a dry run writes no object, however many it holds
	}
	tx.pending.Spill = &gitdb.Spill{
		GitDir:  tx.s.dir,
		Bytes:   bulkSpillBytes,
		Has:     tx.hasStored,
		Spilled: tx.db.Close,
	}
}

// writeTreeEarly queues the prepared folder's blobs and trees and drops
// its files: until it is recorded, a prepared folder then costs its tree
// id, not its file list and data. Only objects are queued (no ref moves),
// so the folders prepared after it see the store as it was. A tree that
// cannot be built keeps its files: recordAll reports the error.
func (tx *Tx) writeTreeEarly(p *Prepared) {
	tree, err := tx.WriteTree(p.files)
	if err == nil {
		p.tree, p.files = tree, nil
	}
}

// treeHash is the id of the prepared folder's tree.
func (p *Prepared) treeHash() (Hash, error) {
	if !p.tree.IsZero() {
		return p.tree, nil
	}
	return TreeHash(p.files)
}

// bulkSpillBytes is gitdb.SpillBytes; tests lower it.
var bulkSpillBytes = gitdb.SpillBytes

// noteSummary keeps the summary of version v, which this transaction just
// wrote from a SKILL.md whose description it parsed: commit saves it as
// is instead of reading the commit, tree and SKILL.md back (which, after a
// spill, means from a pack) and parsing SKILL.md again.
func (tx *Tx) noteSummary(v Version, description string) {
	if tx.written == nil {
		tx.written = map[string]Summary{}
	}
	tx.written[v.Skill] = Summary{Name: v.Skill, Commit: v.Commit, Tree: v.Tree, Number: v.Number,
		Time: v.Time, Source: v.Source, Risk: v.Risk, Description: description}
}

// bulkMemoryLimit is the soft memory limit a bulk write runs under. What
// it holds for good is two packs' worth of objects (one queued, one being
// written) and about 2 KB per skill (its result, ref and summary), and by
// default the collector lets the heap grow to twice that before it runs;
// under the limit it runs more often near it instead. A store whose
// import holds more than the limit for good (some 80,000 skills) makes
// the runtime's limiter cap the collector at half the CPU: the limit is
// a ceiling for the common sizes, not a bound for every size.
const bulkMemoryLimit = 192 << 20

// bulkGCPercent is the collector's target (GOGC) during a bulk write:
// the heap may grow by half of what is live, not all of it.
const bulkGCPercent = 50

// limitMemory sets bulkMemoryLimit and bulkGCPercent, unless the process runs under a limit
// of its own (GOMEMLIMIT), and returns what restores the previous one.
func limitMemory() (restore func()) {
	if old := debug.SetMemoryLimit(-1); old != math.MaxInt64 {
		return func() {}
	}
	debug.SetMemoryLimit(bulkMemoryLimit)
	gc := debug.SetGCPercent(bulkGCPercent)
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}
