package reload

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// FuzzClassify builds two trees from fuzzed file lists ("path:kind:data"
// lines) and checks the laws of the classification: a tree is unchanged
// against itself, the changed paths are the same in both directions, a hot
// change touches only SKILL.md, and the tree ID does not depend on the order
// files are listed in.
func FuzzClassify(f *testing.F) {
	f.Add("SKILL.md:0:v1\nscripts/run.sh:1:x", "SKILL.md:0:v2\nscripts/run.sh:1:x")
	f.Add("SKILL.md:0:v1", "SKILL.md:2:target\nlink:2:SKILL.md")
	f.Add("a/b:0:1\na.b:0:2\na-b:0:3", "a/b:0:1\na.b:0:2")
	f.Fuzz(func(t *testing.T, a, b string) {
		ta, fa := fuzzTree(a)
		tb, _ := fuzzTree(b)
		if ta == nil || tb == nil {
			return
		}
		if c := Classify(ta, ta); c.Class != Unchanged || len(c.Paths) != 0 {
			t.Fatalf("tree against itself: %s %v", c.Class, c.Paths)
		}
		ab, ba := Classify(ta, tb), Classify(tb, ta)
		if !slices.Equal(ab.Paths, ba.Paths) {
			t.Fatalf("paths differ by direction: %v vs %v", ab.Paths, ba.Paths)
		}
		if (ab.Class == Unchanged) != (ta.ID == tb.ID) {
			t.Fatalf("class %s but IDs %s, %s", ab.Class, ta.ID, tb.ID)
		}
		if ab.Class == Hot && !slices.Equal(ab.Paths, []string{skillmd.FileName}) {
			t.Fatalf("hot change touches %v", ab.Paths)
		}
		slices.Reverse(fa)
		if rev, err := NewTree(fa); err != nil || rev.ID != ta.ID {
			t.Fatalf("tree ID depends on file order: %v %v", rev, err)
		}
	})
}

func fuzzTree(spec string) (*Tree, []skillfs.File) {
	var files []skillfs.File
	for _, line := range strings.Split(spec, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || len(parts[1]) != 1 {
			continue
		}
		files = append(files, skillfs.File{Path: parts[0], Mode: skillfs.Mode(parts[1][0] % 3), Data: []byte(parts[2])})
	}
	t, err := NewTree(files)
	if err != nil {
		return nil, nil
	}
	return t, files
}
