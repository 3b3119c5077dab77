package store

import (
	"bytes"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/skillstore/skillstore/merge"
)

func TestMergeTreeRoundTrip(t *testing.T) {
	files := []File{
		{Path: "SKILL.md", Mode: filemode.Regular, Data: []byte(skill)},
		{Path: "empty.txt", Mode: filemode.Regular, Data: []byte{}},
		{Path: "scripts/run.sh", Mode: filemode.Executable, Data: []byte("#!/bin/sh\n")},
	}
	mt, err := toMergeTree(files)
	if err != nil {
		t.Fatal(err)
	}
	if mt["scripts/run.sh"].Mode != merge.Executable || len(mt) != 3 {
		t.Fatalf("merge tree = %v", mt)
	}
	back := fromMergeTree(mt)
	want, _ := TreeHash(files)
	got, err := TreeHash(back)
	if err != nil || got != want {
		t.Errorf("round trip tree %s (%v), want %s", got, err, want)
	}
	for i := range back {
		if !bytes.Equal(back[i].Data, files[i].Data) || back[i].Path != files[i].Path {
			t.Errorf("file %d = %+v, want %+v", i, back[i], files[i])
		}
	}
	if _, err := toMergeTree([]File{{Path: "dev", Mode: filemode.Empty}}); err == nil {
		t.Error("a special file converted without error")
	}
}
