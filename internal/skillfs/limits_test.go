package skillfs

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckBounds checks each bound of a tree's shape at its edge: a path
// at the limit passes, one byte or one level more is a *BoundError whose
// message is one short line naming the bound.
func TestCheckBounds(t *testing.T) {
	deep := func(levels int) string { return strings.Repeat("d/", levels-1) + "f" }
	long := func(n int) string { // n bytes in names of 200
		var parts []string
		for n > 0 {
			k := min(n, 200)
			parts = append(parts, strings.Repeat("x", k))
			n -= k + 1
		}
		return strings.Join(parts, "/")
	}
	for _, c := range []struct {
		name, path, reason string
	}{
		{"128 levels", deep(MaxDepth), ""},
		{"129 levels", deep(MaxDepth + 1), "path deeper than the limit of 128 levels"},
		{"30,000 levels", deep(30000), "path longer than the limit of 4096 bytes"},
		{"4096 bytes", long(MaxPathBytes), ""},
		{"4097 bytes", long(MaxPathBytes + 1), "path longer than the limit of 4096 bytes"},
		{"255-byte name", "a/" + strings.Repeat("n", MaxNameBytes), ""},
		{"256-byte name", "a/" + strings.Repeat("n", MaxNameBytes+1), "name longer than the limit of 255 bytes"},
		{"256-byte folder", strings.Repeat("n", MaxNameBytes+1) + "/f", "name longer than the limit of 255 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := len(c.path); c.reason == "" && got > MaxPathBytes {
				t.Fatalf("test path is %d bytes", got)
			}
			err := CheckBounds(c.path)
			if c.reason == "" {
				if err != nil {
					t.Fatalf("CheckBounds: %v", err)
				}
				if err := CheckPath(c.path); err != nil {
					t.Fatalf("CheckPath: %v", err)
				}
				return
			}
			var b *BoundError
			if !errors.As(err, &b) || b.Reason() != c.reason {
				t.Fatalf("CheckBounds = %v, want a BoundError: %s", err, c.reason)
			}
			if msg := err.Error(); len(msg) > 120 || !strings.HasSuffix(msg, c.reason) || strings.Contains(msg, "\n") {
				t.Errorf("message %q: want one short line ending in the reason", msg)
			}
			if err := CheckPath(c.path); !errors.As(err, &b) {
				t.Errorf("CheckPath = %v, want the BoundError", err)
			}
		})
	}
}

// TestChildPath walks down a chain the way every tree walker does and
// stops at the first entry past a bound, before making a path longer.
func TestChildPath(t *testing.T) {
	p := ""
	depth := 1
	var err error
	for ; depth <= 1000; depth++ {
		var next string
		if next, err = ChildPath(p, "d", depth); err != nil {
			break
		}
		p = next
	}
	var b *BoundError
	if !errors.As(err, &b) || depth != MaxDepth+1 {
		t.Fatalf("stopped at depth %d with %v, want a BoundError at %d", depth, err, MaxDepth+1)
	}
	if levels := strings.Count(b.Path, "/") + 1; levels != MaxDepth+1 {
		t.Errorf("BoundError.Path has %d levels, want %d (one past the bound, no more)", levels, MaxDepth+1)
	}
	if got, err := ChildPath("", "SKILL.md", 1); got != "SKILL.md" || err != nil {
		t.Errorf(`ChildPath("", "SKILL.md", 1) = %q, %v`, got, err)
	}
}

func TestShortPath(t *testing.T) {
	if got := ShortPath("docs/a.md"); got != "docs/a.md" {
		t.Errorf("ShortPath of a short path = %q", got)
	}
	long := strings.Repeat("é/", 100)
	got := ShortPath(long)
	if !strings.HasSuffix(got, "…") || len(got) > shortPathBytes+len("…") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("ShortPath = %q: want at most %d bytes of whole characters and …", got, shortPathBytes)
	}
	if got := ShortPath(strings.Repeat("a", 70) + "\n"); strings.Contains(got, "\n") {
		t.Errorf("ShortPath = %q: a newline must not reach the message", got)
	}
}

// TestCheckCollisionsDeep: a collision far down a deep path is still
// found, and a path the length of the bound costs one pass (a tree of
// 1,000 such paths is checked at once; the loop before folded every
// prefix again, 128 times per path).
func TestCheckCollisionsDeep(t *testing.T) {
	prefix := strings.Repeat("dir/", MaxDepth-2)
	paths := []string{prefix + "Docs/a", prefix + "docs/b"}
	var c *CollisionError
	if err := CheckCollisions(paths); !errors.As(err, &c) || c.A != prefix+"Docs" || c.B != prefix+"docs" {
		t.Fatalf("CheckCollisions = %v, want Docs and docs at depth %d", err, MaxDepth-1)
	}
	var many []string
	for i := range 1000 {
		many = append(many, prefix+strings.Repeat("x", i%50)+"/f")
	}
	if err := CheckCollisions(many); err != nil {
		t.Fatal(err)
	}
}
