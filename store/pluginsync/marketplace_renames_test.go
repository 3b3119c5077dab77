package pluginsync

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// writeMarket writes a folder marketplace with the given entries.
func writeMarket(t *testing.T, dir string, renames string, entries ...string) {
	t.Helper()
	body := `{"name": "m", "plugins": [` + strings.Join(entries, ",") + `]`
	if renames != "" {
		body += `, "renames": ` + renames
	}
	storetest.WriteFile(t, filepath.Join(dir, ".claude-plugin", "marketplace.json"), body+"}\n")
}

// TestMarketplaceMovesPin: when the marketplace pins its entry at a new
// commit, adding it again makes the plugin follow it, and sync fetches it.
func TestMarketplaceMovesPin(t *testing.T) {
	up, first, second := storetest.UpstreamRepo(t)
	market := t.TempDir()
	entry := func(sha string) string {
		return fmt.Sprintf(`{"name": "tool", "source": {"source": "url", "url": "file://%s", "sha": %q}}`, up, sha)
	}
	writeMarket(t, market, "", entry(first))
	s := storetest.NewStore(t)
	ctx := context.Background()
	src, err := plugins.ParseSource(market, "")
	if err != nil {
		t.Fatal(err)
	}
	local := AddOptions{AllowLocal: []string{up}} // the entry's repository, named
	if rep, err := Add(ctx, s, src, local); err != nil || rep.Failed() || len(rep.Plugins) != 1 {
		t.Fatalf("add: %+v %v", rep, err)
	}
	writeMarket(t, market, "", entry(second))
	rep, err := Add(ctx, s, src, local)
	if err != nil || len(rep.Moved) != 1 || rep.Moved[0].Plugin != "tool" || !strings.HasSuffix(rep.Moved[0].To, " at "+second) {
		t.Fatalf("add again: %+v %v", rep, err)
	}
	got := syncOnce(t, s, Options{})
	if sr := got["a"]; sr.Classification != ClassFastForward || sr.NewVersion != 2 {
		t.Fatalf("sync after the pin moved: %+v", got)
	}
}

// TestMarketplaceRenameToTakenID: a rename whose new id another plugin
// holds is reported and changes nothing; the old plugin stays as it was.
func TestMarketplaceRenameToTakenID(t *testing.T) {
	market := t.TempDir()
	storetest.WriteFile(t, filepath.Join(market, "plugins", "tool", "skills", "lint", "SKILL.md"), storetest.SkillMD("lint"))
	other := t.TempDir()
	storetest.WriteFile(t, filepath.Join(other, "skills", "fmt", "SKILL.md"), storetest.SkillMD("fmt"))
	writeMarket(t, market, "", `{"name": "old", "source": "./plugins/tool"}`)
	s := storetest.NewStore(t)
	ctx := context.Background()
	src, _ := plugins.ParseSource(market, "")
	if _, err := Add(ctx, s, src, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	osrc, _ := plugins.ParseSource(other, "")
	if _, err := Add(ctx, s, osrc, AddOptions{ID: "new"}); err != nil {
		t.Fatal(err)
	}
	writeMarket(t, market, `{"old": "new"}`, `{"name": "new", "source": "./plugins/tool"}`)
	rep, err := Add(ctx, s, src, AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Renamed) != 0 || len(rep.Plugins) != 1 || !strings.Contains(rep.Plugins[0].Error, `the marketplace renames "old" to "new", and plugin "new" exists already`) {
		t.Fatalf("rename to a taken id: %+v", rep)
	}
	err = s.View(ctx, func(r *store.Reader) error {
		p, err := plugins.Get(r, "old")
		if err != nil {
			return err
		}
		if !p.Owns("lint") || p.Source.Selector != "old" {
			t.Errorf("old plugin changed: %+v", p)
		}
		if _, ok := r.Ref(store.UpstreamRef("old", "lint")); !ok {
			t.Error("old plugin lost its upstream ref")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMarketplaceEntryMovesToAnotherRepository: an entry of the
// marketplace's own folder that moves to a repository of its own fails sync
// with what to do, and adding the marketplace again makes the plugin follow
// it, keeping its history: the new upstream is a fast-forward.
func TestMarketplaceEntryMovesToAnotherRepository(t *testing.T) {
	market := t.TempDir()
	storetest.WriteFile(t, filepath.Join(market, "plugins", "tool", "skills", "a", "SKILL.md"), storetest.Skill)
	writeMarket(t, market, "", `{"name": "tool", "source": "./plugins/tool"}`)
	s := storetest.NewStore(t)
	ctx := context.Background()
	src, _ := plugins.ParseSource(market, "")
	if rep, err := Add(ctx, s, src, AddOptions{}); err != nil || rep.Failed() {
		t.Fatalf("add: %+v %v", rep, err)
	}
	up, _, _ := storetest.UpstreamRepo(t) // skills/a at HEAD is skill plus one line
	writeMarket(t, market, "", fmt.Sprintf(`{"name": "tool", "source": {"source": "url", "url": "file://%s"}}`, up))
	rep, err := Run(ctx, s, Options{})
	if err != nil || len(rep.Plugins) != 1 || !strings.Contains(rep.Plugins[0].Error, "the marketplace lists tool in another repository now: add the marketplace again") {
		t.Fatalf("sync: %+v %v", rep, err)
	}
	again, err := Add(ctx, s, src, AddOptions{AllowLocal: []string{"file://" + up}})
	if err != nil || len(again.Moved) != 1 || again.Moved[0].To != "file://"+up {
		t.Fatalf("add again: %+v %v", again, err)
	}
	got := syncOnce(t, s, Options{})
	if sr := got["a"]; sr.Classification != ClassFastForward || sr.NewVersion != 2 {
		t.Fatalf("sync from the new repository: %+v", got)
	}
}
