package pluginsync

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// TestSyncWritesAfterAnotherWriter makes another sync write the same
// update between the shared read of a sync and its write: the refs the
// first one read moved, so it classifies again as the one writer, finds
// the update already in, and writes nothing (one v2, no second version).
// Without the check, it would write its own v2 over the other's.
func TestSyncWritesAfterAnotherWriter(t *testing.T) {
	ctx := context.Background()
	s := storetest.NewStore(t)
	up := filepath.Join(t.TempDir(), "plugin")
	md := filepath.Join(up, "skills", "alpha", "SKILL.md")
	storetest.WriteFile(t, md, storetest.SkillMD("alpha", "one"))
	storetest.WriteFile(t, filepath.Join(up, ".claude-plugin", "plugin.json"), `{"name": "demo"}`)
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Add(ctx, s, src, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	storetest.WriteFile(t, md, storetest.SkillMD("alpha", "one", "two"))

	other, err := store.Open(ctx, s.Dir(), store.Options{Actor: store.Signature{Name: "Other", Email: "o@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := store.Open(ctx, s.Dir(), store.Options{Actor: store.Signature{Name: "First", Email: "f@example.com"}, BeforeWriteLock: func() {
		if got := syncOnce(t, other, Options{})["alpha"]; got.Classification != ClassFastForward || got.NewVersion != 2 {
			t.Errorf("the other sync: %+v, want a fast-forward to v2", got)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := syncOnce(t, first, Options{})["alpha"]
	if got.Classification != ClassUnchanged || got.Changed() {
		t.Errorf("the first sync, after the other wrote: %+v, want unchanged", got)
	}
	v := storetest.HeadOf(t, s, "demo:alpha")
	if v.Number != 2 || !strings.HasPrefix(v.Actor, "Other") {
		t.Errorf("head = v%d by %q, want v2 by Other", v.Number, v.Actor)
	}
}
