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

// queueBlobs queues the files' contents as blobs and drops the contents,
// keeping the blob ids: a prepared folder then costs its file list, not
// its data, until it is recorded (WriteTree takes files by id).
func (tx *Tx) queueBlobs(files []File) {
	for i := range files {
		if files[i].Data != nil {
			files[i].ID = tx.writeBlob(files[i].Data)
			files[i].Data = nil
		}
	}
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

// bulkMemoryLimit is the soft memory limit a bulk write runs under: what
// it holds for good is small (a pack being queued, one being written, a
// few hundred bytes per skill), and without a limit the collector lets the
// heap grow to twice that before it runs. With it, the collector runs
// more often instead, which costs a few percent of an import's time.
const bulkMemoryLimit = 128 << 20

// limitMemory sets bulkMemoryLimit, unless the process runs under a limit
// of its own (GOMEMLIMIT), and returns what restores the previous one.
func limitMemory() (restore func()) {
	if old := debug.SetMemoryLimit(-1); old != math.MaxInt64 {
		return func() {}
	}
	debug.SetMemoryLimit(bulkMemoryLimit)
	return func() { debug.SetMemoryLimit(math.MaxInt64) }
}
