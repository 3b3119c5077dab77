package target

import (
	"context"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
)

// storeReads loads the files of the skills export writes. Opening a
// store.View costs a lock and a look at the store's refs and packs, more
// than reading one skill's few files: export asks for a batch at a time
// (reload.ExportOptions.Reading), and the loads of a batch share one View.
type storeReads struct {
	s   *store.Store
	ctx context.Context
	r   *store.Reader // while a batch's View is open
}

// load reads the files of tree, in the batch's View if one is open.
func (sr *storeReads) load(tree store.Hash) ([]skillfs.File, error) {
	if sr.r != nil {
		return sr.r.LoadFiles(tree)
	}
	var files []skillfs.File
	err := sr.s.View(sr.ctx, func(r *store.Reader) error {
		var err error
		files, err = r.LoadFiles(tree)
		return err
	})
	return files, err
}

// batch runs read in one View of the store.
func (sr *storeReads) batch(read func() error) error {
	return sr.s.View(sr.ctx, func(r *store.Reader) error {
		sr.r = r
		defer func() { sr.r = nil }()
		return read()
	})
}
