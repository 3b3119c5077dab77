package candidates

import (
	"bytes"
	"testing"

	storecandidates "github.com/skillstore/skillstore/store/candidates"
)

// TestWriteWordConflicts: a side's lines far from its changes are left
// out, a line end added alone is shown, and a block without the base shows
// ours against upstream.
func TestWriteWordConflicts(t *testing.T) {
	diff3 := "intro\n<<<<<<< ours v2\na\nb\nc\nd changed\ne\n\n||||||| base\na\nb\nc\nd\ne\n=======\na\nb\nc\nd\ne\nadded\n>>>>>>> upstream\n"
	plain := "<<<<<<< ours v2\nWave politely.\n=======\nWave warmly.\n>>>>>>> upstream\n"
	var buf bytes.Buffer
	err := writeWordConflicts(&buf, []storecandidates.MarkedFile{{Path: "SKILL.md", Data: []byte(diff3)}, {Path: "notes.md", Data: []byte(plain)}})
	if err != nil {
		t.Fatal(err)
	}
	want := `
conflicts left, word by word ([-base-]{+side+}):
SKILL.md:2
  ours (ours v2):
    …
    c
    d{+ changed+}
    e{+⏎+}

  upstream (upstream):
    …
    e
    {+added+}
notes.md:1
  ours against upstream (ours v2 / upstream):
    Wave [-warmly-]{+politely+}.
`
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
}
