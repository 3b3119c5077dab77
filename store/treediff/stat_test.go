package treediff

import (
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

func TestStatsAndWriteStat(t *testing.T) {
	old := []skillfs.File{
		{Path: "SKILL.md", Data: []byte("a\nb\nc\n")},
		{Path: "notes.md", Data: []byte("same\n")},
		{Path: "gone.txt", Data: []byte("x\ny\n")},
	}
	new := []skillfs.File{
		{Path: "SKILL.md", Data: []byte("a\nB\nc\nd\n")},
		{Path: "docs.md", Data: []byte("same\n")},
	}
	stats := Stats(Files(old, new))
	var b strings.Builder
	if err := WriteStat(&b, stats, 80); err != nil {
		t.Fatal(err)
	}
	want := "" +
		" SKILL.md            | 3 ++-\n" +
		" notes.md => docs.md | 0\n" +
		" gone.txt            | 2 --\n" +
		" 3 files changed, 2 insertions(+), 3 deletions(-)\n"
	if b.String() != want {
		t.Fatalf("WriteStat:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteStatScalesLongBars(t *testing.T) {
	var b strings.Builder
	if err := WriteStat(&b, []FileStat{{Path: "big.md", Insertions: 1000}, {Path: "small.md", Insertions: 1}}, 40); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if len(line) > 40 {
			t.Errorf("line wider than 40 columns: %q", line)
		}
	}
	if !strings.Contains(b.String(), " small.md |    1 +\n") {
		t.Errorf("a non-zero count keeps one column:\n%s", b.String())
	}
}
