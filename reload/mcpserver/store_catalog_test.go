package mcpserver

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillstore/skillstore/store"
)

// TestStoreCatalogSeesEveryChange: the published set's generation changes
// with a new version, a new skill and a disabled skill, also once the
// catalog trusts its stamp of the refs (times older than settleTime: set
// back here, as if the store had been quiet for a minute).
func TestStoreCatalogSeesEveryChange(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	add := func(name, desc string) {
		t.Helper()
		dir := filepath.Join(tmp, "src", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := s.Add(ctx, []string{dir}, store.AddOptions{})
		if err != nil || len(res) != 1 || res[0].Err != nil {
			t.Fatalf("add %s: %v %+v", name, err, res)
		}
	}
	settle := func() {
		t.Helper()
		old := time.Now().Add(-time.Minute)
		for _, p := range []string{filepath.Join(s.Dir(), "packed-refs"), filepath.Join(s.Dir(), "refs")} {
			filepath.WalkDir(p, func(p string, d fs.DirEntry, err error) error {
				if err == nil {
					os.Chtimes(p, old, old)
				}
				return nil
			})
		}
	}
	cat := NewStoreCatalog(s)
	gen := func() string {
		t.Helper()
		g, err := cat.Generation(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}

	add("alpha", "First.")
	settle()
	g1 := gen()
	if cat.stamp == nil {
		t.Fatal("a settled store's stamp was not kept")
	}
	if g := gen(); g != g1 {
		t.Fatal("generation changed with nothing written")
	}
	add("alpha", "Second.")
	g2 := gen()
	if g2 == g1 {
		t.Error("a new version left the generation as it was")
	}
	settle()
	gen()
	add("beta", "Another.")
	g3 := gen()
	if g3 == g2 {
		t.Error("a new skill left the generation as it was")
	}
	settle()
	gen()
	if err := s.SetStatus(ctx, "beta", store.StatusDisabled, "test"); err != nil {
		t.Fatal(err)
	}
	if gen() == g3 {
		t.Error("disabling a skill left the generation as it was")
	}
	if _, err := cat.Open(ctx, "beta"); !errors.Is(err, ErrUnknownSkill) {
		t.Errorf("open a disabled skill: %v, want ErrUnknownSkill", err)
	}
	v, err := cat.Open(ctx, "alpha")
	if err != nil || v.Version != 2 || v.Description != "Second." || v.Files[0].Path != "SKILL.md" {
		t.Errorf("open alpha: %v %+v", err, v)
	}
}
