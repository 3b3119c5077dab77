package pluginsync

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store/internal/storetest"
)

// A skill whose files collide on macOS and Windows is refused alone: plugin
// add leaves it out and adds the other skill; a sync that brings a
// colliding name into a published skill refuses that skill's update (its
// published version stays) and takes the other's.
func TestCollidingNamesRefuseTheSkillOnly(t *testing.T) {
	up := t.TempDir()
	storetest.WriteFile(t, filepath.Join(up, "skills", "a", "SKILL.md"), storetest.SkillMD("a", "one"))
	storetest.WriteFile(t, filepath.Join(up, "skills", "b", "SKILL.md"), storetest.SkillMD("b", "one"))
	storetest.WriteFile(t, filepath.Join(up, "skills", "c", "SKILL.md"), storetest.SkillMD("c", "one"))
	storetest.WriteFile(t, filepath.Join(up, "skills", "c", "Skill.MD"), "the other one\n")
	storetest.GitCommitAll(t, up, "one")
	src := mainSource(t, up)
	s := storetest.NewStore(t)
	rep, err := Add(context.Background(), s, src, AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, sk := range rep.Plugins[0].Skills {
		got[sk.Skill] = sk.Error
		if len(sk.LeftOut) > 0 {
			got[sk.Skill] = string(sk.LeftOut[0].Kind) + ": " + sk.LeftOut[0].Reason
		}
	}
	if got["a"] != "" || got["b"] != "" || !strings.Contains(got["c"], "refused: c rejected by the safety check: SKILL.md: collides with Skill.MD: one name on macOS and Windows") {
		t.Fatalf("plugin add: %q", got)
	}

	storetest.WriteFile(t, filepath.Join(up, "skills", "a", "SKILL.md"), storetest.SkillMD("a", "two"))
	storetest.WriteFile(t, filepath.Join(up, "skills", "a", "skill.md"), "lower case\n")
	storetest.WriteFile(t, filepath.Join(up, "skills", "b", "SKILL.md"), storetest.SkillMD("b", "two"))
	if err := os.Remove(filepath.Join(up, "skills", "c", "Skill.MD")); err != nil {
		t.Fatal(err)
	}
	storetest.GitCommitAll(t, up, "two")
	srep, err := Run(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]SkillReport{}
	for _, sk := range srep.Plugins[0].Skills {
		res[sk.Skill] = sk
	}
	if a := res["a"]; a.Classification != ClassLeftOut || !strings.Contains(a.LeftOut[0].Reason, "SKILL.md: collides with skill.md") || a.NewVersion != 0 {
		t.Errorf("sync of a: %+v, want held back", a)
	}
	if b := res["b"]; b.Error != "" || b.NewVersion != 2 {
		t.Errorf("sync of b: %+v, want v2", b)
	}
	if c := res["c"]; c.Error != "" || c.NewVersion != 1 {
		t.Errorf("sync of c, its names fixed upstream: %+v, want v1", c)
	}
}
