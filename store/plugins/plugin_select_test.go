package plugins_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// TestUnselectDisabledPluginSkill: a skill that leaves a disabled plugin's
// selection becomes managed, leaves the plugin's disabled_skills and stays
// disabled when the plugin is enabled again.
func TestUnselectDisabledPluginSkill(t *testing.T) {
	ctx := context.Background()
	s := storetest.NewStore(t)
	up := filepath.Join(t.TempDir(), "up")
	storetest.WriteFile(t, filepath.Join(up, "skills", "one", "SKILL.md"), storetest.SkillMD("one", "one"))
	storetest.WriteFile(t, filepath.Join(up, "skills", "two", "SKILL.md"), storetest.SkillMD("two", "two"))
	src, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pluginsync.Add(ctx, s, src, pluginsync.AddOptions{ID: "kit"}); err != nil {
		t.Fatal(err)
	}
	if _, err := plugins.Disable(ctx, s, "kit", "test"); err != nil {
		t.Fatal(err)
	}
	ch, err := plugins.ChangeSelection(ctx, s, "kit", nil, []string{"two"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ch.Managed, []string{"two"}) || !slices.Equal(ch.After, []string{"*", "!two"}) {
		t.Fatalf("change %+v, want two managed and the selection [* !two]", ch)
	}
	if err := s.View(ctx, func(r *store.Reader) error {
		p, err := plugins.Get(r, "kit")
		if err == nil && !slices.Equal(p.DisabledSkills, []string{"one"}) {
			t.Errorf("disabled_skills %v, want only the plugin's own [one]", p.DisabledSkills)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := plugins.Enable(ctx, s, "kit"); err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(r *store.Reader) error {
		for skill, want := range map[string]store.Status{"one": store.StatusActive, "two": store.StatusDisabled} {
			rec, err := r.SkillRecord(skill)
			if err != nil {
				return err
			}
			if rec.Status != want {
				t.Errorf("%s is %s, want %s", skill, rec.Status, want)
			}
		}
		rec, _ := r.SkillRecord("two")
		if rec.Source != store.SourceManaged || rec.FromPlugin != "kit" {
			t.Errorf("two's record %+v, want managed, from kit", rec)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
