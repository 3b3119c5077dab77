package merge

import (
	"bytes"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// TestTreeOfRoundTrip checks that a stored file list survives the trip
// through a Tree: same paths, content, modes and therefore tree id.
func TestTreeOfRoundTrip(t *testing.T) {
	files := []File{
		{Path: "SKILL.md", Mode: Regular, Data: []byte("---\nname: a\n---\n")},
		{Path: "empty.txt", Mode: Regular, Data: []byte{}},
		{Path: "scripts/run.sh", Mode: Executable, Data: []byte("#!/bin/sh\n")},
	}
	mt := TreeOf(files)
	if mt["scripts/run.sh"].Mode != Executable || len(mt) != 3 {
		t.Fatalf("merge tree = %v", mt)
	}
	back := mt.Files()
	want, _ := skillfs.TreeID(files)
	got, err := skillfs.TreeID(back)
	if err != nil || got != want {
		t.Errorf("round trip tree %s (%v), want %s", got, err, want)
	}
	for i := range back {
		if !bytes.Equal(back[i].Data, files[i].Data) || back[i].Path != files[i].Path || back[i].ID != skillfs.BlobID(files[i].Data) {
			t.Errorf("file %d = %+v, want %+v", i, back[i], files[i])
		}
	}
	if _, err := MergeTrees(Tree{}, Tree{"dev": {Mode: skillfs.Special}}, Tree{}, Options{}); err == nil {
		t.Error("a special file merged without error")
	}
}
