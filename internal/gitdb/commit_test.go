package gitdb

import (
	"strings"
	"testing"
)

// TestCommitsRoundTrip decodes every commit git wrote and encodes it
// again: the bytes, and so the id, must be git's.
func TestCommitsRoundTrip(t *testing.T) {
	dir := repoWithHistory(t)
	n := 0
	for h, o := range catFileAll(t, dir) {
		if o.Type != CommitObject {
			continue
		}
		n++
		c, err := ParseCommit(h, o.Data)
		if err != nil {
			t.Fatal(err)
		}
		if string(c.Encode()) != string(o.Data) || HashObject(CommitObject, c.Encode()) != h {
			t.Fatalf("%s encodes as\n%s\nwant\n%s", h, c.Encode(), o.Data)
		}
		if c.Author.Email != "t@example.com" || !strings.HasPrefix(c.Subject(), "edit ") {
			t.Fatalf("%s: %+v", h, c)
		}
	}
	if n != 40 {
		t.Fatalf("%d commits, want 40", n)
	}
}

// FuzzParseCommit: any bytes give a commit or an error, never a panic,
// and a commit that parses encodes to bytes that parse to the same
// commit.
func FuzzParseCommit(f *testing.F) {
	f.Add([]byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbc4904b\nauthor a <a@b> 1700000000 +0100\ncommitter a <a@b> 1700000000 +0100\n\nsubject\n\nKey: v\n"))
	f.Add([]byte("tree x\n\n"))
	f.Add([]byte("parent 4b825dc642cb6eb9a060e54bf8d69288fbc4904b\nauthor <> 1 +0000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCommit(ID{}, data)
		if err != nil {
			return
		}
		again, err := ParseCommit(ID{}, c.Encode())
		if err != nil {
			t.Fatalf("re-encoded commit does not parse: %v\n%q", err, c.Encode())
		}
		if again.Tree != c.Tree || len(again.Parents) != len(c.Parents) || again.Message != c.Message {
			t.Fatalf("round trip changed the commit: %+v -> %+v", c, again)
		}
	})
}

// FuzzTrailers: whatever a subject, body or trailer value holds (newlines,
// colons, trailer look-alikes), the trailers BuildMessage writes read back
// exactly, values folded to one line, and the subject is the first line.
func FuzzTrailers(f *testing.F) {
	f.Add("subject", "body", "value")
	f.Add("s", "Key: injected\nOther: 99", "a\nb")
	f.Add("", "a\n\nb: c", "Key: value\n\nOther: x")
	f.Fuzz(func(t *testing.T, subject, body, value string) {
		c := &Commit{Message: BuildMessage(subject, body, []Trailer{{Key: "First", Value: "1"}, {Key: "Value", Value: value}})}
		got := map[string]string{}
		for _, tr := range c.Trailers() {
			got[tr.Key] = tr.Value
		}
		if got["First"] != "1" {
			t.Fatalf("trailers lost: %q -> %v", c.Message, got)
		}
		if want := OneLine(value); want != "" && got["Value"] != want {
			t.Fatalf("value %q read back as %q from %q", want, got["Value"], c.Message)
		}
		if c.Trailer("first") != "1" {
			t.Fatalf("Trailer(first) = %q", c.Trailer("first"))
		}
		if c.Subject() != OneLine(subject) {
			t.Fatalf("subject %q read back as %q", OneLine(subject), c.Subject())
		}
	})
}
