// Package synctest holds the sync helper that tests outside pluginsync
// share (storetest cannot hold it: pluginsync's own tests import
// storetest, and pluginsync would then import itself).
package synctest

import (
	"context"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/pluginsync"
)

// SyncOnce syncs s and returns the report of each skill by name, failing
// the test on any plugin's error.
func SyncOnce(t testing.TB, s *store.Store, opts pluginsync.Options) map[string]pluginsync.SkillReport {
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
