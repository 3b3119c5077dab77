package store_test

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// TestQualifiedNameErrors: a qualified name whose plugin the store lacks
// is an *UnknownPluginSkillError (wrapping ErrUnknownPlugin, so the CLI
// names the plugin list); a known plugin without that skill is an
// *UnknownSkillError; a name that cannot be a ref component is an
// *InvalidNameError before anything is read or written.
func TestQualifiedNameErrors(t *testing.T) {
	ctx := context.Background()
	s := storetest.NewStore(t)
	up := filepath.Join(t.TempDir(), "kit")
	storetest.WriteFile(t, filepath.Join(up, "skills", "alpha", "SKILL.md"), storetest.SkillMD("alpha"))
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Log(ctx, "nope:alpha")
	var ups *store.UnknownPluginSkillError
	if !errors.As(err, &ups) || ups.Plugin != "nope" || !errors.Is(err, store.ErrUnknownPlugin) {
		t.Errorf("log nope:alpha = %v, want an unknown plugin", err)
	}
	_, err = s.Log(ctx, "kit:beta")
	var us *store.UnknownSkillError
	if !errors.As(err, &us) || errors.Is(err, store.ErrUnknownPlugin) {
		t.Errorf("log kit:beta = %v, want an unknown skill of a known plugin", err)
	}
	for _, bad := range []string{"Kit:alpha", "kit:Alpha", "kit:a/b", "kit:", ":alpha", "a:b:c", "kit:.."} {
		if _, err := s.Log(ctx, bad); !errors.As(err, new(*store.InvalidNameError)) {
			t.Errorf("log %q = %v, want an invalid name", bad, err)
		}
	}
	if _, err := s.Add(ctx, []string{up + "/skills/alpha"}, store.AddOptions{As: "nope:alpha", AllowRisk: 2}); !errors.Is(err, store.ErrUnknownPlugin) {
		t.Errorf("add --as nope:alpha = %v, want an unknown plugin", err)
	}
	if _, err := s.Add(ctx, []string{up + "/skills/alpha"}, store.AddOptions{As: "kit:other", AllowRisk: 2}); err == nil || !strings.Contains(err.Error(), `cannot be recorded as "kit:other"`) {
		t.Errorf("add --as kit:other of alpha's folder = %v", err)
	}
}

// TestSamePluginIDFromTwoMarketplaces: a plugin id taken by another
// marketplace's plugin does not keep the second marketplace's plugin out:
// it goes in as NAME-MARKETPLACE (the marketplace's "name"), the report
// says which name was taken by whom, the first plugin is untouched, and
// adding the second marketplace again finds its plugin under that id.
func TestSamePluginIDFromTwoMarketplaces(t *testing.T) {
	ctx := context.Background()
	s := storetest.NewStore(t)
	var srcs []plugins.Source
	for _, m := range []string{"one", "two"} {
		dir := filepath.Join(t.TempDir(), m)
		storetest.WriteFile(t, filepath.Join(dir, ".claude-plugin", "marketplace.json"),
			`{"name": "`+m+`-market", "owner": {"name": "x"}, "plugins": [{"name": "tool", "source": "./tool"}]}`)
		storetest.WriteFile(t, filepath.Join(dir, "tool", "skills", "lint", "SKILL.md"), storetest.SkillMD("lint", "from "+m))
		src, err := plugins.ParseSource(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	if _, err := pluginsync.Add(ctx, s, srcs[0], pluginsync.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	rep, err := pluginsync.Add(ctx, s, srcs[1], pluginsync.AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Plugins) != 1 || rep.Plugins[0].Error != "" || rep.Plugins[0].Plugin != "tool-two-market" {
		t.Fatalf("second marketplace: %+v, want tool added as tool-two-market", rep.Plugins)
	}
	if pr := rep.Plugins[0]; pr.Entry != "tool" || !strings.Contains(pr.IDTakenBy, "marketplace "+plugins.MarketplaceName(srcs[0])) {
		t.Errorf("report says entry %q taken by %q, want tool taken by the first marketplace's", pr.Entry, pr.IDTakenBy)
	}
	again, err := pluginsync.Add(ctx, s, srcs[1], pluginsync.AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Plugins) != 0 || !slices.Equal(again.AlreadyAdded, []string{"tool-two-market"}) {
		t.Errorf("second marketplace again: plugins %+v, already %v; want tool-two-market already added", again.Plugins, again.AlreadyAdded)
	}
	err = s.View(ctx, func(r *store.Reader) error {
		for id, want := range map[string]string{"tool": "from one", "tool-two-market": "from two"} {
			p, err := plugins.Get(r, id)
			if err != nil {
				return err
			}
			if p.Marketplace != plugins.MarketplaceName(srcs[map[string]int{"tool": 0, "tool-two-market": 1}[id]]) {
				t.Errorf("%s is from %s", id, p.Marketplace)
			}
			v, err := r.Head(id + ":lint")
			if err != nil {
				return err
			}
			files, _ := r.LoadFiles(v.Tree)
			if !strings.Contains(string(store.FileMap(files)[store.SkillFile].Data), want) || v.Number != 1 {
				t.Errorf("%s:lint is not %q v1: v%d", id, want, v.Number)
			}
		}
		recs, err := plugins.List(r)
		if len(recs) != 2 {
			t.Errorf("%d plugins, want 2", len(recs))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRemovePluginNeverOverwritesManaged: removing a plugin whose skill
// shares a managed skill's name keeps the plugin's skill as a removed
// "PLUGIN:NAME" (the managed one untouched) and makes its other skill
// managed; adding the plugin again revives the first and links the
// second back, histories kept.
func TestRemovePluginNeverOverwritesManaged(t *testing.T) {
	ctx := context.Background()
	s := storetest.NewStore(t)
	mine := filepath.Join(t.TempDir(), "deploy")
	storetest.WriteFile(t, filepath.Join(mine, "SKILL.md"), storetest.SkillMD("deploy", "mine"))
	if _, err := s.Add(ctx, []string{mine}, storetest.DefaultAdd()); err != nil {
		t.Fatal(err)
	}
	up := filepath.Join(t.TempDir(), "ops")
	storetest.WriteFile(t, filepath.Join(up, "skills", "deploy", "SKILL.md"), storetest.SkillMD("deploy", "theirs"))
	storetest.WriteFile(t, filepath.Join(up, "skills", "rollback", "SKILL.md"), storetest.SkillMD("rollback"))
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	mineHead := storetest.HeadOf(t, s, "deploy")
	if _, err := plugins.Remove(ctx, s, "ops"); err != nil {
		t.Fatal(err)
	}
	status := func() map[string]store.Status {
		infos, err := s.List(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]store.Status{}
		for _, in := range infos {
			out[in.Name] = in.Status
		}
		return out
	}
	want := map[string]store.Status{"deploy": store.StatusActive, "ops:deploy": store.StatusRemoved, "rollback": store.StatusActive}
	if got := status(); !maps.Equal(got, want) {
		t.Errorf("after plugin rm: %v, want %v", got, want)
	}
	if h := storetest.HeadOf(t, s, "deploy"); h.Commit != mineHead.Commit {
		t.Errorf("the managed deploy changed: %+v", h)
	}
	if _, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	want = map[string]store.Status{"deploy": store.StatusActive, "ops:deploy": store.StatusActive, "ops:rollback": store.StatusActive}
	if got := status(); !maps.Equal(got, want) {
		t.Errorf("after adding ops again: %v, want %v", got, want)
	}
	if h := storetest.HeadOf(t, s, "ops:rollback"); h.Number != 1 {
		t.Errorf("ops:rollback linked back as v%d, want its v1", h.Number)
	}
	if vr, err := s.Verify(ctx); err != nil || !vr.OK() {
		t.Fatalf("verify: %v %+v", err, vr.Problems)
	}
}
