package reload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// loadedSkills are n skills whose files come from Load, counting the loads
// and whether each ran inside a Reading call.
func loadedSkills(n int, inBatch *bool, loads, loadsInBatch *int) []Skill {
	skills := make([]Skill, n)
	for i := range skills {
		name := fmt.Sprintf("s%04d", i)
		skills[i] = Skill{Name: name, Load: func() ([]skillfs.File, error) {
			*loads++
			if *inBatch {
				*loadsInBatch++
			}
			return []skillfs.File{
				{Path: "SKILL.md", Data: []byte("---\nname: " + name + "\ndescription: d\n---\n")},
				{Path: "scripts/run.sh", Mode: skillfs.Executable, Data: []byte("echo " + name + "\n")},
			}, nil
		}}
	}
	return skills
}

// TestExportReadsInBatches: a first export of more skills than a batch
// loads every skill inside a Reading call, a few calls in all, and writes
// every folder whole.
func TestExportReadsInBatches(t *testing.T) {
	const n = 2*planBatch + 10
	target := filepath.Join(t.TempDir(), "skills")
	var inBatch bool
	var loads, loadsInBatch, batches int
	opts := ExportOptions{Reading: func(read func() error) error {
		batches++
		inBatch = true
		defer func() { inBatch = false }()
		return read()
	}}
	rep, err := Export(context.Background(), target, loadedSkills(n, &inBatch, &loads, &loadsInBatch), opts)
	if err != nil {
		t.Fatal(err)
	}
	if loads != n || loadsInBatch != n || batches != 3 {
		t.Errorf("%d loads, %d in a batch, %d batches; want %d, %d, 3", loads, loadsInBatch, batches, n, n)
	}
	for _, r := range rep.Results {
		if r.Action != ActionCold {
			t.Fatalf("%s: %s %s", r.Skill, r.Action, r.Error)
		}
		if got := readFileT(t, filepath.Join(target, r.Skill, "scripts", "run.sh")); got != "echo "+r.Skill+"\n" {
			t.Fatalf("%s: run.sh = %q", r.Skill, got)
		}
		if info, err := os.Stat(filepath.Join(target, r.Skill, "scripts", "run.sh")); err != nil || info.Mode().Perm()&0o100 == 0 {
			t.Fatalf("%s: run.sh not executable (%v)", r.Skill, err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(target, ".skillstore", "tmp"))
	if err != nil || len(entries) != 0 {
		t.Errorf("staging folder holds %d entries after the export (%v)", len(entries), err)
	}
}

// TestExportWithoutBatchRead: when Reading cannot open its read (it
// returns an error without running read), every skill loads alone and
// the export goes on.
func TestExportWithoutBatchRead(t *testing.T) {
	target := filepath.Join(t.TempDir(), "skills")
	var inBatch bool
	var loads, loadsInBatch int
	opts := ExportOptions{Reading: func(func() error) error { return errors.New("store locked") }}
	rep, err := Export(context.Background(), target, loadedSkills(20, &inBatch, &loads, &loadsInBatch), opts)
	if err != nil {
		t.Fatal(err)
	}
	if loads != 20 || len(rep.Results) != 20 || rep.Results[0].Action != ActionCold {
		t.Errorf("%d loads, %d results (%v)", loads, len(rep.Results), rep.Results[0])
	}
}

// TestWriteFilesKeepsLinksInside: a link that stays in the folder is
// written as the same relative link; a list with a link out of the folder,
// or a file below a link (writing through it), writes nothing.
func TestWriteFilesKeepsLinksInside(t *testing.T) {
	md := skillfs.File{Path: "SKILL.md", Data: []byte("---\nname: x\ndescription: d\n---\n")}
	dir := t.TempDir()
	if err := WriteFiles(dir, []skillfs.File{md, {Path: "AGENTS.md", Mode: skillfs.Symlink, Data: []byte("SKILL.md")}}); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "AGENTS.md")); err != nil || target != "SKILL.md" {
		t.Errorf("link = %q, %v", target, err)
	}

	outside := t.TempDir()
	for name, files := range map[string][]skillfs.File{
		"link out": {md, {Path: "up", Mode: skillfs.Symlink, Data: []byte("../" + filepath.Base(outside))}},
		"absolute": {md, {Path: "abs", Mode: skillfs.Symlink, Data: []byte(outside)}},
		"through a link": {md, {Path: "d", Mode: skillfs.Symlink, Data: []byte("SKILL.md")},
			{Path: "d/x", Data: []byte("written through the link")}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := WriteFiles(dir, files); err == nil {
				t.Fatal("written")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("wrote %d entries before refusing", len(entries))
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("wrote into the folder outside")
			}
		})
	}
}
