package treediff

import (
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

func TestUnifiedDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk"
	got := Unified(old, new, 3)
	want := "@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -8,3 +8,4 @@\n h\n i\n j\n+k\n\\ No newline at end of file\n"
	if got != want {
		t.Errorf("diff =\n%s\nwant\n%s", got, want)
	}
	if Unified("same\n", "same\n", 3) != "" {
		t.Error("equal texts produced a diff")
	}
}

func TestDiffFilesRenamesAndModes(t *testing.T) {
	old := []skillfs.File{
		{Path: "a.md", Mode: skillfs.Regular, Data: []byte("moved\n")},
		{Path: "run.sh", Mode: skillfs.Regular, Data: []byte("x\n")},
	}
	new := []skillfs.File{
		{Path: "b.md", Mode: skillfs.Regular, Data: []byte("moved\n")},
		{Path: "run.sh", Mode: skillfs.Executable, Data: []byte("x\n")},
	}
	changes := Files(old, new)
	if len(changes) != 2 || changes[0].Kind != ChangeRenamed || changes[0].OldPath != "a.md" || !changes[1].ModeChanged() || changes[1].Patch != "" {
		t.Fatalf("changes = %+v", changes)
	}
}
