package store

import "github.com/skillstore/skillstore/internal/gitdb"

// boundMemory makes the transaction write its objects into a pack each
// time it holds gitdb.SpillBytes of them, instead of holding every object
// until the end: for bulk writes such as import, whose memory would
// otherwise grow with the number of skills. Only for transactions that
// read objects through gitdb alone (not go-git's storage, which keeps the
// list of packs it opened): the hook makes gitdb list the packs again.
func (tx *Tx) boundMemory() {
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
