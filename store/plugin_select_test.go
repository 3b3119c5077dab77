package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// TestUnselectDisabledPluginSkill: a skill that leaves a disabled plugin's
// selection becomes managed, leaves the plugin's disabled_skills and stays
// disabled when the plugin is enabled again.
func TestUnselectDisabledPluginSkill(t *testing.T) {
	ctx := context.Background()
	s := newSyncStore(t)
	up := filepath.Join(t.TempDir(), "up")
	writeFile(t, filepath.Join(up, "skills", "one", "SKILL.md"), skillMD("one", "one"))
	writeFile(t, filepath.Join(up, "skills", "two", "SKILL.md"), skillMD("two", "two"))
	src, err := ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Add(ctx, s, src, AddPluginOptions{ID: "kit"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Disable(ctx, s, "kit", "test"); err != nil {
		t.Fatal(err)
	}
	ch, err := ChangeSelection(ctx, s, "kit", nil, []string{"two"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ch.Managed, []string{"two"}) || !slices.Equal(ch.After, []string{"*", "!two"}) {
		t.Fatalf("change %+v, want two managed and the selection [* !two]", ch)
	}
	if err := s.View(ctx, func(r *Reader) error {
		p, err := GetPlugin(r, "kit")
		if err == nil && !slices.Equal(p.DisabledSkills, []string{"one"}) {
			t.Errorf("disabled_skills %v, want only the plugin's own [one]", p.DisabledSkills)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := Enable(ctx, s, "kit"); err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(r *Reader) error {
		for skill, want := range map[string]Status{"one": StatusActive, "two": StatusDisabled} {
			rec, err := r.SkillRecord(skill)
			if err != nil {
				return err
			}
			if rec.Status != want {
				t.Errorf("%s is %s, want %s", skill, rec.Status, want)
			}
		}
		rec, _ := r.SkillRecord("two")
		if rec.Source != SourceManaged || rec.FromPlugin != "kit" {
			t.Errorf("two's record %+v, want managed, from kit", rec)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
