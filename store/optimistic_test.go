package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncWritesAfterAnotherWriter makes another sync write the same
// update between the shared read of a sync and its write: the refs the
// first one read moved, so it classifies again as the one writer, finds
// the update already in, and writes nothing (one v2, no second version).
// Without the check, it would write its own v2 over the other's.
func TestSyncWritesAfterAnotherWriter(t *testing.T) {
	ctx := context.Background()
	s := newSyncStore(t)
	up := filepath.Join(t.TempDir(), "plugin")
	md := filepath.Join(up, "skills", "alpha", "SKILL.md")
	writeFile(t, md, skillMD("alpha", "one"))
	writeFile(t, filepath.Join(up, ".claude-plugin", "plugin.json"), `{"name": "demo"}`)
	src, err := ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddPlugin(ctx, src, AddPluginOptions{}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, md, skillMD("alpha", "one", "two"))

	other, err := Open(ctx, s.Dir(), Options{Actor: Signature{Name: "Other", Email: "o@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := Open(ctx, s.Dir(), Options{Actor: Signature{Name: "First", Email: "f@example.com"}, BeforeWriteLock: func() {
		if got := syncOnce(t, other, SyncOptions{})["alpha"]; got.Classification != ClassFastForward || got.NewVersion != 2 {
			t.Errorf("the other sync: %+v, want a fast-forward to v2", got)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := syncOnce(t, first, SyncOptions{})["alpha"]
	if got.Classification != ClassUnchanged || got.Changed() {
		t.Errorf("the first sync, after the other wrote: %+v, want unchanged", got)
	}
	v := headOf(t, s, "demo:alpha")
	if v.Number != 2 || !strings.HasPrefix(v.Actor, "Other") {
		t.Errorf("head = v%d by %q, want v2 by Other", v.Number, v.Actor)
	}
}
