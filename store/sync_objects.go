package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// syncObjects reads the objects a sync needs: the transaction's pending
// objects, loose objects, then packs through a go-git storage that keeps
// pack files open for the whole sync. Sync reads a commit or a record for
// every skill, and reopening the pack for each (as a one-off read does)
// was most of the time of a sync with nothing to do.
type syncObjects struct {
	tx *Tx
	st *filesystem.Storage
}

func newSyncObjects(tx *Tx) *syncObjects {
	st := filesystem.NewStorageWithOptions(osfs.New(tx.s.dir), cache.NewObjectLRU(8<<20), filesystem.Options{KeepDescriptors: true})
	return &syncObjects{tx: tx, st: st}
}

// close releases the pack files.
func (o *syncObjects) close() { o.st.Close() }

func (o *syncObjects) object(h Hash) (rawObject, error) {
	if raw, ok := o.tx.pending.get(h); ok {
		return raw, nil
	}
	if raw, err := readLooseObject(o.tx.s.dir, h); err == nil {
		return raw, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return rawObject{}, err
	}
	obj, err := o.st.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		// A pack written after this storage listed the packs: the
		// store's own reader rescans.
		return o.tx.object(h)
	}
	rd, err := obj.Reader()
	if err != nil {
		return rawObject{}, fmt.Errorf("object %s: %w", h, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return rawObject{}, fmt.Errorf("object %s: %w", h, err)
	}
	return rawObject{typ: obj.Type(), data: data}, nil
}

func (o *syncObjects) commit(h Hash) (*Commit, error) {
	raw, err := o.object(h)
	if err != nil {
		return nil, err
	}
	if raw.typ != plumbing.CommitObject {
		return nil, fmt.Errorf("object %s is a %s, not a commit", h, raw.typ)
	}
	return parseCommit(h, raw.data)
}

// plugins reads every plugin record like [Reader.Plugins], through o.
func (o *syncObjects) plugins() ([]*Plugin, error) {
	ids, err := o.tx.RecordKeys("plugins")
	if err != nil {
		return nil, err
	}
	st, err := o.tx.loadState()
	if err != nil {
		return nil, err
	}
	out := make([]*Plugin, 0, len(ids))
	for _, id := range ids {
		path := pluginRecord(id)
		h, stored := st.files[path]
		if _, queued := o.tx.state.puts[path]; queued || !stored {
			p, err := o.tx.Plugin(id)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
			continue
		}
		raw, err := o.object(h)
		if err != nil {
			return nil, fmt.Errorf("read record %s: %w", path, err)
		}
		var p Plugin
		if err := json.Unmarshal(raw.data, &p); err != nil {
			return nil, fmt.Errorf("state record %s%s does not parse: %w", path, recordExt, err)
		}
		out = append(out, &p)
	}
	return out, nil
}
