package store

import (
	"bytes"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// FuzzTrailersRoundTrip checks that whatever a reason or subject holds
// (newlines, colons, trailer look-alikes), the trailers of a version commit
// read back exactly as written, so `git log` and the store agree.
func FuzzTrailersRoundTrip(f *testing.F) {
	f.Add("deploy v1", "first cut", "- high: x: y")
	f.Add("s", "Reason: injected\nSkill-Version: 99", "")
	f.Add("", "a\n\nb: c", "Key: value\n\nOther: x")
	f.Fuzz(func(t *testing.T, subject, reason, body string) {
		trailers := []Trailer{{TrailerVersion, "3"}, {TrailerSource, SourceManaged}, {TrailerReason, reason}}
		c := &Commit{Message: BuildMessage(subject, body, trailers)}
		got := map[string]string{}
		for _, tr := range c.Trailers() {
			got[tr.Key] = tr.Value
		}
		if got[TrailerVersion] != "3" || got[TrailerSource] != SourceManaged {
			t.Fatalf("trailers lost: %q -> %v", c.Message, got)
		}
		if want := gitdb.OneLine(reason); got[TrailerReason] != want {
			t.Fatalf("reason %q read back as %q from %q", want, got[TrailerReason], c.Message)
		}
		if c.Trailer(TrailerVersion) != "3" {
			t.Fatalf("Trailer(%s) = %q", TrailerVersion, c.Trailer(TrailerVersion))
		}
	})
}

// FuzzParseTree checks that tree parsing never panics and that a tree it
// accepts encodes back to the same bytes when its entries are sorted.
func FuzzParseTree(f *testing.F) {
	f.Add(encodeTree([]skillfs.TreeEntry{{Name: "SKILL.md", Mode: skillfs.Regular}, {Name: "scripts", Mode: skillfs.Dir}}))
	f.Add([]byte("100644 a\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseTree(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if strings.ContainsRune(e.Name, 0) {
				t.Fatalf("name with NUL: %q", e.Name)
			}
		}
		again, err := parseTree(encodeTree(entries))
		if err != nil || len(again) != len(entries) {
			t.Fatalf("re-encoded tree does not parse: %v", err)
		}
		if b := encodeTree(again); !bytes.Equal(b, encodeTree(entries)) {
			t.Fatal("encoding is not stable")
		}
	})
}
