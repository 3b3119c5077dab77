package plugins_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// TestLinkSkillInSubfolderPlugin links a managed copy to a plugin that
// lives in a folder of its repository (--path): the base is searched at
// that folder's skill path, the link keeps the published files and
// history, and the next sync fast-forwards the unedited copy to upstream's
// later change. A disabled skill stays disabled.
func TestLinkSkillInSubfolderPlugin(t *testing.T) {
	ctx := context.Background()
	up := filepath.Join(t.TempDir(), "up")
	storetest.Git(t, filepath.Dir(up), "init", "-q", "-b", "main", up)
	commit := func(one string) store.Hash {
		storetest.WriteFile(t, filepath.Join(up, "sub", "skills", "one", "SKILL.md"), one)
		storetest.WriteFile(t, filepath.Join(up, "sub", "skills", "two", "SKILL.md"), storetest.SkillMD("two", "two"))
		storetest.Git(t, up, "add", "-A")
		storetest.Git(t, up, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "c")
		h, _ := store.ParseHash(strings.TrimSpace(storetest.Git(t, up, "rev-parse", "HEAD")))
		return h
	}
	first, second := storetest.SkillMD("one", "a", "b", "c"), storetest.SkillMD("one", "a", "b, upstream", "c")
	c1 := commit(first)
	commit(second)

	s := storetest.NewStore(t)
	copyDir := filepath.Join(t.TempDir(), "one")
	storetest.WriteFile(t, filepath.Join(copyDir, "SKILL.md"), first)
	if _, err := s.Add(ctx, []string{copyDir}, storetest.DefaultAdd()); err != nil {
		t.Fatal(err)
	}
	if err := s.SetStatus(ctx, "one", store.StatusDisabled, "testing"); err != nil {
		t.Fatal(err)
	}
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if src, err = src.WithPath("sub"); err != nil {
		t.Fatal(err)
	}
	if _, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{ID: "kit", Skills: []string{"!one"}}); err != nil {
		t.Fatal(err)
	}

	res, err := plugins.Link(ctx, s, "kit", "one")
	if err != nil {
		t.Fatal(err)
	}
	if res.Base.Commit != c1 || !res.Base.Exact || res.LocalEdit || res.Version != 2 || !res.SelectChanged || len(res.Select) != 0 {
		t.Fatalf("link: %+v, want exact %s, v2, selection back to all", res, c1)
	}
	if _, err := plugins.Link(ctx, s, "kit", "one"); !errors.Is(err, store.ErrNoChange) {
		t.Errorf("second link: %v, want ErrNoChange", err)
	}
	err = s.View(ctx, func(r *store.Reader) error {
		owner, err := plugins.SkillOwner(r, "kit:one")
		if err != nil || owner != "plugin:kit" {
			t.Errorf("owner %q (%v), want plugin:kit", owner, err)
		}
		rec, err := r.SkillRecord("kit:one")
		if err != nil || rec.Status != store.StatusDisabled {
			t.Errorf("record %+v (%v), want still disabled", rec, err)
		}
		head, _ := r.Ref(store.SkillRef("kit:one"))
		u, _ := r.Ref(store.UpstreamRef("kit", "one"))
		if base, err := r.MergeBase(head, u); err != nil || base != u {
			t.Errorf("merge base of one and its upstream: %s (%v), want the snapshot %s", base, err, u)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetStatus(ctx, "kit:one", store.StatusActive, ""); err != nil {
		t.Fatal(err)
	}
	rep, err := pluginsync.Run(ctx, s, pluginsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sk := range rep.Plugins[0].Skills {
		got = append(got, sk.Skill+" "+string(sk.Classification))
	}
	if strings.Join(got, ", ") != "one fast-forward, two unchanged" {
		t.Errorf("sync after link: %s, want one fast-forward, two unchanged", strings.Join(got, ", "))
	}
}
