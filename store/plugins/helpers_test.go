package plugins_test

import (
	"context"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// syncOnce syncs s and returns the report of each skill by name, failing
// the test on any plugin's error.
func syncOnce(t testing.TB, s *store.Store, opts pluginsync.Options) map[string]pluginsync.SkillReport {
	t.Helper()
	rep, err := pluginsync.Run(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]pluginsync.SkillReport{}
	for _, p := range rep.Plugins {
		if p.Error != "" {
			t.Fatalf("plugin %s: %s", p.Plugin, p.Error)
		}
		for _, sk := range p.Skills {
			out[sk.Skill] = sk
		}
	}
	return out
}
