package gitfetch

import (
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Snapshot is how a source that is no git repository (an archive, a
// SKILL.md, a site's index, an npm package) becomes what a fetch of a
// git source is: its files are written, in memory over base, as a tree
// and a commit whose parent is have, the commit the store holds of the
// source (none: the first). When the files are have's tree, have is the
// result and nothing is new, so an unchanged source is unchanged as a git
// source whose branch did not move is. The commit is signed by sig, with
// message; the caller stores its objects as a fetch's (NewObjects).
//
// Every file needs Data; paths are checked as skillfs.BuildTree checks
// them.
func Snapshot(base storage.Storer, files []skillfs.File, have skillfs.ID, sig gitdb.Signature, message string) (Fetched, error) {
	fs := newFetchStorer(base)
	put := func(t plumbing.ObjectType, data []byte) skillfs.ID {
		o := fs.objs.NewEncodedObject()
		o.SetType(t)
		o.SetSize(int64(len(data)))
		w, _ := o.Writer()
		w.Write(data)
		w.Close()
		h, _ := fs.objs.SetEncodedObject(o)
		return skillfs.ID(h)
	}
	withIDs := make([]skillfs.File, len(files))
	for i, f := range files {
		f.ID = skillfs.BlobID(f.Data)
		withIDs[i] = f
	}
	tree, err := skillfs.TreeID(withIDs)
	if err != nil {
		return Fetched{}, err
	}
	if !have.IsZero() {
		if c, err := object.GetCommit(fs, plumbing.Hash(have)); err == nil && skillfs.ID(c.TreeHash) == tree {
			return Fetched{Commit: have, objects: fs}, nil
		}
	}
	for _, f := range withIDs {
		if fs.HasEncodedObject(plumbing.Hash(f.ID)) != nil {
			put(plumbing.BlobObject, f.Data)
		}
	}
	if _, err := skillfs.BuildTree(withIDs, func(b []byte) skillfs.ID { return put(plumbing.TreeObject, b) }); err != nil {
		return Fetched{}, err
	}
	if sig.When.IsZero() {
		sig.When = time.Now()
	}
	c := gitdb.Commit{Tree: tree, Author: sig, Committer: sig, Message: message}
	if !have.IsZero() && hasCommit(fs, have) {
		c.Parents = []skillfs.ID{have}
	}
	h := put(plumbing.CommitObject, c.Encode())
	if h.IsZero() {
		return Fetched{}, fmt.Errorf("snapshot commit not written")
	}
	return Fetched{Commit: h, objects: fs}, nil
}
