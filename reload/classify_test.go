package reload

import (
	"slices"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

func mustTree(t *testing.T, files ...skillfs.File) *Tree {
	t.Helper()
	tree, err := NewTree(files)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func TestClassify(t *testing.T) {
	skill := skillfs.File{Path: "SKILL.md", Data: []byte("---\nname: deploy\n---\nv1\n")}
	skill2 := skillfs.File{Path: "SKILL.md", Data: []byte("---\nname: deploy\n---\nv2\n")}
	script := skillfs.File{Path: "scripts/run.sh", Mode: skillfs.Executable, Data: []byte("#!/bin/sh\necho v1\n")}
	script2 := skillfs.File{Path: "scripts/run.sh", Mode: skillfs.Executable, Data: []byte("#!/bin/sh\necho v2\n")}
	scriptPlain := skillfs.File{Path: "scripts/run.sh", Mode: skillfs.Regular, Data: script.Data}
	ref := skillfs.File{Path: "references/api.md", Data: []byte("api\n")}
	link := skillfs.File{Path: "current", Mode: skillfs.Symlink, Data: []byte("scripts/run.sh")}
	link2 := skillfs.File{Path: "current", Mode: skillfs.Symlink, Data: []byte("references/api.md")}
	skillExec := skillfs.File{Path: "SKILL.md", Mode: skillfs.Executable, Data: skill.Data}
	skillLink := skillfs.File{Path: "SKILL.md", Mode: skillfs.Symlink, Data: []byte("references/api.md")}
	nestedSkill := skillfs.File{Path: "sub/SKILL.md", Data: []byte("a")}
	nestedSkill2 := skillfs.File{Path: "sub/SKILL.md", Data: []byte("b")}
	bookkeeping := skillfs.File{Path: ".skillstore-export.json", Data: []byte("{}")}
	swap := skillfs.File{Path: ".SKILL.md.swp", Data: []byte("swap")}

	base := []skillfs.File{skill, script, ref, link}
	tests := []struct {
		name      string
		old, new  []skillfs.File // nil slice with noOld/noNew means "not installed"
		noOld     bool
		noNew     bool
		wantClass Class
		wantPaths []string
	}{
		{name: "identical", old: base, new: base, wantClass: Unchanged},
		{name: "SKILL.md text only", old: base, new: []skillfs.File{skill2, script, ref, link}, wantClass: Hot, wantPaths: []string{"SKILL.md"}},
		{name: "SKILL.md and a script", old: base, new: []skillfs.File{skill2, script2, ref, link}, wantClass: Cold, wantPaths: []string{"SKILL.md", "scripts/run.sh"}},
		{name: "script content", old: base, new: []skillfs.File{skill, script2, ref, link}, wantClass: Cold, wantPaths: []string{"scripts/run.sh"}},
		{name: "file added", old: []skillfs.File{skill, script}, new: []skillfs.File{skill, script, ref}, wantClass: Cold, wantPaths: []string{"references/api.md"}},
		{name: "file removed", old: base, new: []skillfs.File{skill, script, link}, wantClass: Cold, wantPaths: []string{"references/api.md"}},
		{name: "script loses exec bit", old: base, new: []skillfs.File{skill, scriptPlain, ref, link}, wantClass: Cold, wantPaths: []string{"scripts/run.sh"}},
		{name: "SKILL.md gains exec bit", old: base, new: []skillfs.File{skillExec, script, ref, link}, wantClass: Cold, wantPaths: []string{"SKILL.md"}},
		{name: "SKILL.md becomes a symlink", old: base, new: []skillfs.File{skillLink, script, ref, link}, wantClass: Cold, wantPaths: []string{"SKILL.md"}},
		{name: "symlink added", old: []skillfs.File{skill, script, ref}, new: base, wantClass: Cold, wantPaths: []string{"current"}},
		{name: "symlink retargeted", old: base, new: []skillfs.File{skill, script, ref, link2}, wantClass: Cold, wantPaths: []string{"current"}},
		{name: "SKILL.md in a subfolder", old: []skillfs.File{skill, nestedSkill}, new: []skillfs.File{skill, nestedSkill2}, wantClass: Cold, wantPaths: []string{"sub/SKILL.md"}},
		{name: "first install", noOld: true, new: []skillfs.File{skill, script}, wantClass: Cold, wantPaths: []string{"SKILL.md", "scripts/run.sh"}},
		{name: "removal", old: []skillfs.File{skill, script}, noNew: true, wantClass: Cold, wantPaths: []string{"SKILL.md", "scripts/run.sh"}},
		{name: "neither installed", noOld: true, noNew: true, wantClass: Unchanged},
		{name: "bookkeeping file added", old: base, new: append(slices.Clone(base), bookkeeping), wantClass: Unchanged},
		{name: "editor swap file added with a SKILL.md edit", old: base, new: []skillfs.File{skill2, script, ref, link, swap}, wantClass: Hot, wantPaths: []string{"SKILL.md"}},
		{name: "empty skill to SKILL.md", old: []skillfs.File{}, new: []skillfs.File{skill}, wantClass: Cold, wantPaths: []string{"SKILL.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var old, new *Tree
			if !tt.noOld {
				old = mustTree(t, tt.old...)
			}
			if !tt.noNew {
				new = mustTree(t, tt.new...)
			}
			got := Classify(old, new)
			if got.Class != tt.wantClass || !slices.Equal(got.Paths, tt.wantPaths) {
				t.Errorf("Classify = %s %v, want %s %v", got.Class, got.Paths, tt.wantClass, tt.wantPaths)
			}
		})
	}
}

// TestClassifyIgnoresBookkeepingEntries covers trees built by hand (not
// through NewTree) that carry bookkeeping entries.
func TestClassifyIgnoresBookkeepingEntries(t *testing.T) {
	a := mustTree(t, skillfs.File{Path: "SKILL.md", Data: []byte("a")})
	b := &Tree{ID: skillfs.BlobID([]byte("different")), Entries: append(slices.Clone(a.Entries), skillfs.File{Path: ".skillstore/x", ID: skillfs.BlobID(nil)})}
	if got := Classify(a, b); got.Class != Unchanged {
		t.Errorf("Classify = %s %v, want unchanged", got.Class, got.Paths)
	}
}
