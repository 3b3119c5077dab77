package plugins_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/internal/synctest"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// TestRelinkFindsSnapshotInHistory: when the snapshot recorded on rm is
// gone (gc drops one that no version took in), re-adding the plugin finds
// the last snapshot the skill's history holds, so a local edit and an
// upstream change still merge three-way against the right base.
func TestRelinkFindsSnapshotInHistory(t *testing.T) {
	ctx := context.Background()
	s := storetest.NewStore(t)
	up := filepath.Join(t.TempDir(), "up")
	storetest.WriteFile(t, filepath.Join(up, "skills", "one", "SKILL.md"), storetest.SkillMD("one", "first", "middle", "last"))
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{ID: "kit"}); err != nil {
		t.Fatal(err)
	}
	var v1 store.Hash
	if err := s.View(ctx, func(r *store.Reader) error {
		v1, _ = r.Ref(store.UpstreamRef("kit", "one"))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := plugins.Remove(ctx, s, "kit"); err != nil {
		t.Fatal(err)
	}
	// The recorded snapshot is made to name a commit the store lacks.
	if err := s.Update(ctx, func(tx *store.Tx) error {
		rec, err := tx.SkillRecord("one")
		if err != nil {
			return err
		}
		if rec.FromPlugin != "kit" || rec.FromUpstream != v1.String() {
			t.Errorf("record after rm %+v, want from kit at %s", rec, v1)
		}
		rec.FromUpstream = strings.Repeat("ab", 20)
		return tx.PutSkillRecord("one", rec)
	}); err != nil {
		t.Fatal(err)
	}
	storetest.LocalEdit(t, s, "one", storetest.SkillMD("one", "first, edited", "middle", "last"))
	storetest.WriteFile(t, filepath.Join(up, "skills", "one", "SKILL.md"), storetest.SkillMD("one", "first", "middle", "last, upstream"))

	rep, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{ID: "kit"})
	if err != nil {
		t.Fatal(err)
	}
	sk := rep.Plugins[0].Skills[0]
	if sk.Classification != pluginsync.ClassThreeWay || len(sk.Conflicts) != 0 {
		t.Fatalf("re-added skill: %+v, want a clean three-way candidate", sk)
	}
	if err := s.View(ctx, func(r *store.Reader) error {
		u, _ := r.Ref(store.UpstreamRef("kit", "one"))
		snap, err := r.Commit(u)
		if err != nil {
			return err
		}
		if len(snap.Parents) != 1 || snap.Parents[0] != v1 {
			t.Errorf("new snapshot's parents %v, want the v1 snapshot %s", snap.Parents, v1)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestReaddKeepsLocalEdit: a plugin removed, a skill edited while managed,
// the plugin added again at the same upstream: the skill is linked back
// unchanged (its edit kept, no candidate), and the other skill's history
// goes on from its old versions.
func TestReaddKeepsLocalEdit(t *testing.T) {
	ctx := context.Background()
	s := storetest.NewStore(t)
	up := filepath.Join(t.TempDir(), "up")
	storetest.WriteFile(t, filepath.Join(up, "skills", "one", "SKILL.md"), storetest.SkillMD("one", "upstream"))
	storetest.WriteFile(t, filepath.Join(up, "skills", "two", "SKILL.md"), storetest.SkillMD("two", "upstream"))
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{ID: "kit"}); err != nil {
		t.Fatal(err)
	}
	if _, err := plugins.Remove(ctx, s, "kit"); err != nil {
		t.Fatal(err)
	}
	edited := storetest.SkillMD("one", "edited while managed")
	storetest.LocalEdit(t, s, "one", edited)

	rep, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{ID: "kit"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range rep.Plugins[0].Skills {
		if sk.Classification != pluginsync.ClassUnchanged || sk.Candidate != "" {
			t.Errorf("%s linked back as %+v, want unchanged without a candidate", sk.Skill, sk)
		}
	}
	err = s.View(ctx, func(r *store.Reader) error {
		if owner, err := plugins.SkillOwner(r, "kit:one"); err != nil || owner != "plugin:kit" {
			t.Errorf("owner of one %q (%v), want plugin:kit", owner, err)
		}
		head, err := r.Head("kit:one")
		if err != nil {
			return err
		}
		files, err := r.LoadFiles(head.Tree)
		if err != nil {
			return err
		}
		if got := string(store.FileMap(files)[store.SkillFile].Data); got != edited || head.Number != 2 {
			t.Errorf("one is v%d with %q, want v2 with the local edit", head.Number, got)
		}
		rec, err := r.SkillRecord("kit:two")
		if err != nil {
			return err
		}
		if rec.Source != "" || rec.FromPlugin != "" {
			t.Errorf("two's record %+v after re-add, want no source override", rec)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := synctest.SyncOnce(t, s, pluginsync.Options{}); got["one"].Classification != pluginsync.ClassUnchanged {
		t.Errorf("next sync: %+v, want unchanged", got["one"])
	}
}
