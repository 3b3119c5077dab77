package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// deepTree queues, as git plumbing would write them, the trees of one
// file depth folders below SKILL.md's folder (d/d/.../f) and returns the
// root tree: no store function writes such a tree, a fetch can.
func deepTree(tx *Tx, depth int) Hash {
	h := tx.WriteObject(gitdb.BlobObject, []byte("x\n"))
	tree := tx.WriteObject(gitdb.TreeObject, skillfs.EncodeTree([]skillfs.TreeEntry{{Name: "f", Mode: skillfs.Regular, ID: h}}))
	for range depth {
		tree = tx.WriteObject(gitdb.TreeObject, skillfs.EncodeTree([]skillfs.TreeEntry{{Name: "d", Mode: skillfs.Dir, ID: tree}}))
	}
	md := tx.WriteObject(gitdb.BlobObject, []byte(skillMD("deep")))
	return tx.WriteObject(gitdb.TreeObject, skillfs.EncodeTree([]skillfs.TreeEntry{{Name: "SKILL.md", Mode: skillfs.Regular, ID: md}, {Name: "d", Mode: skillfs.Dir, ID: tree}}))
}

// TestFilesStopsAtTheBound: the walk of a tree 30,000 folders deep stops
// at the first path past skillfs.MaxDepth with a *skillfs.BoundError; one
// at the bound is listed; WriteTree and the checks of every writer refuse
// the path past it.
func TestFilesStopsAtTheBound(t *testing.T) {
	s := newSyncStore(t)
	err := s.Update(context.Background(), func(tx *Tx) error {
		files, err := tx.Files(deepTree(tx, skillfs.MaxDepth-2))
		if err != nil || len(files) != 2 || strings.Count(files[1].Path, "/")+1 != skillfs.MaxDepth {
			t.Fatalf("Files at the bound = %d files, %v; want SKILL.md and a file %d levels deep", len(files), err, skillfs.MaxDepth)
		}
		_, err = tx.Files(deepTree(tx, 30000))
		var b *skillfs.BoundError
		if !errors.As(err, &b) {
			t.Fatalf("Files of a tree 30,000 folders deep = %v, want a BoundError", err)
		}
		if levels := strings.Count(b.Path, "/") + 1; levels != skillfs.MaxDepth+1 {
			t.Errorf("the walk went %d levels deep, want it to stop at %d", levels, skillfs.MaxDepth+1)
		}
		deep := File{Path: b.Path, Mode: skillfs.Regular, Data: []byte("x")}
		if _, err := tx.WriteTree([]File{deep}); !errors.As(err, &b) {
			t.Errorf("WriteTree of a path past the bound = %v, want a BoundError", err)
		}
		return errors.New("write nothing")
	})
	if err == nil || err.Error() != "write nothing" {
		t.Fatal(err)
	}
}

// TestVerifyFindsADeepVersion: a version past the bounds, as a store
// before them could hold (and a hand-made push could bring), is one
// problem of verify, one short line naming the bound; the plugin source
// commits verify lists whole are not held to the bound.
func TestVerifyFindsADeepVersion(t *testing.T) {
	s := newSyncStore(t)
	ctx := context.Background()
	err := s.Update(ctx, func(tx *Tx) error {
		_, err := tx.WriteVersion("deep", 1, nil, deepTree(tx, 30000), VersionInfo{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 {
		t.Fatalf("verify found %d problems, want the deep path: %v", len(rep.Problems), rep.Problems)
	}
	msg := rep.Problems[0].String()
	if !strings.HasSuffix(msg, "path deeper than the limit of 128 levels") || len(msg) > 160 {
		t.Errorf("verify's problem %q: want one short line naming the bound", msg)
	}
}
