package target

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// TestProjectOnlyPluginReachesItsProjects: a plugin a project's lock added
// (plugins.ProjectOnly) is wanted by that project's targets only, whatever
// the other targets select, until the user adds it (DropProjectOnly); a
// skill of another plugin, or a managed one, is wanted everywhere.
func TestProjectOnlyPluginReachesItsProjects(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(tmp, "app")
	for _, tg := range []Target{
		{Name: "global", Dir: filepath.Join(tmp, "home", ".claude", "skills")},
		{Name: "app-claude", Dir: filepath.Join(project, ".claude", "skills"), Project: project},
		{Name: "app-by-hand", Dir: filepath.Join(project, ".agents", "skills")},
		{Name: "other-claude", Dir: filepath.Join(tmp, "other", ".claude", "skills"), Project: filepath.Join(tmp, "other")},
	} {
		if err := Add(ctx, s, tg); err != nil {
			t.Fatal(err)
		}
	}
	if err := plugins.AddProjectOnly(ctx, s, "acme", project); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]bool{
		"global":       {"acme:deploy": false, "tools:lint": true, "notes": true},
		"app-claude":   {"acme:deploy": true, "tools:lint": true, "notes": true},
		"app-by-hand":  {"acme:deploy": true, "tools:lint": true, "notes": true},
		"other-claude": {"acme:deploy": false, "tools:lint": true, "notes": true},
	}
	check := func(when string, want map[string]map[string]bool) {
		targets, err := List(ctx, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range targets {
			for skill, w := range want[tg.Name] {
				if got := tg.Wants(skill); got != w {
					t.Errorf("%s: target %s wants %s = %v, want %v", when, tg.Name, skill, got, w)
				}
			}
		}
	}
	check("lock-added", want)
	if err := plugins.DropProjectOnly(ctx, s, "acme"); err != nil {
		t.Fatal(err)
	}
	for _, m := range want {
		m["acme:deploy"] = true
	}
	check("added by the user", want)
}
